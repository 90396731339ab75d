/**
 * Every live firm's balance at once, for the console's "Bakiyeler" (ledger/overview.ts): one
 * statement, so every firm's figures are of one moment and a hundred firms cost one round trip, not
 * three each. The same sums `LedgerRepository.balance` and `heldInBatches` read for one firm: the
 * firm's and its transit's counter shards (`firm:<id>`, `in_transit:<id>`), and its payouts in live
 * batches not yet sent.
 */
import { type Kysely, sql } from "kysely";
import { normalBalance } from "../../domain/ledger.js";
import type { Database } from "../schema.js";

/** A firm's figures, in kuruş on each account's normal side (what the company owes the firm is positive). */
export interface FirmBalanceRow {
  firmId: number;
  name: string;
  active: boolean;
  balance: number;
  inTransit: number;
  /** What its payouts in live batches not yet sent (batched, second approval) hold back. */
  held: number;
}

type Row = {
  id: unknown;
  name: string;
  active: unknown;
  balance: unknown;
  in_transit: unknown;
  held: unknown;
};

/**
 * Each live firm (test firms post nothing: their money is not real) with its balance, transit and
 * held payouts, by id. A firm the ledger has not named yet has zeros.
 */
export async function firmBalances(db: Kysely<Database>): Promise<FirmBalanceRow[]> {
  const { rows } = await sql<Row>`
    WITH sums AS (
      SELECT a.kind AS kind, a.ref AS ref, SUM(b.balance) AS balance
      FROM ledger_accounts a JOIN ledger_balances b ON b.account_id = a.id
      WHERE a.kind IN ('firm', 'in_transit')
      GROUP BY a.kind, a.ref),
    held AS (
      SELECT firm_id, SUM(amount) AS held FROM payout_attempts
      WHERE stage IN ('batched', 'second_approval') GROUP BY firm_id)
    SELECT f.id AS id, f.name AS name, f.active AS active,
      COALESCE(fb.balance, 0) AS balance, COALESCE(tb.balance, 0) AS in_transit,
      COALESCE(h.held, 0) AS held
    FROM firms f
    LEFT JOIN sums fb ON fb.kind = 'firm' AND fb.ref = CAST(f.id AS TEXT)
    LEFT JOIN sums tb ON tb.kind = 'in_transit' AND tb.ref = CAST(f.id AS TEXT)
    LEFT JOIN held h ON h.firm_id = f.id
    WHERE f.sandbox = 0
    ORDER BY f.id`.execute(db);
  return rows.map((r) => ({
    firmId: Number(r.id),
    name: r.name,
    active: Number(r.active) === 1,
    balance: normalBalance("firm", Number(r.balance)),
    inTransit: normalBalance("in_transit", Number(r.in_transit)),
    held: Number(r.held),
  }));
}

export interface LedgerOverviewRepository {
  /** Every live firm's figures now, in one statement (see firmBalances). */
  firmBalances(): Promise<FirmBalanceRow[]>;
}

export function createLedgerOverviewRepository(db: Kysely<Database>): LedgerOverviewRepository {
  return { firmBalances: () => firmBalances(db) };
}
