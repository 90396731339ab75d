/**
 * What the ledger may start from (docs/ledger.md, "Opening balances"): each firm's and each bank
 * account's sums of what was decided before the ledger began, read a slice of the transactions at
 * a time, so that a 10 M-row table never holds the store for long (deposits go on between slices).
 */
import { type Kysely, sql } from "kysely";
import type { Database } from "../schema.js";

/** Transactions read per slice, by id. */
export const PROPOSAL_SLICE = 20_000;

export interface DecidedSums {
  /** The moment the ledger began: what was decided before it has no posting. */
  since: number;
  firms: Map<number, { deposits: number; withdrawals: number }>;
  /** By IBAN as the payment account holds it, with the accounts that share it. */
  ibans: Map<string, { accountIds: Set<number>; deposits: number; withdrawals: number }>;
}

/** The ledger's first moment: its first posting other than an opening balance; now without one. */
async function ledgerStart(db: Kysely<Database>, now: number): Promise<number> {
  const row = await db
    .selectFrom("ledger_postings")
    .select(sql<string | number | null>`min(at)`.as("first"))
    .where("kind", "<>", "opening_balance")
    .executeTakeFirst();
  return row?.first === null || row?.first === undefined ? now : Number(row.first);
}

/** The sums of approved transactions of real firms decided before the ledger began, slice by slice. */
export async function decidedBeforeLedger(db: Kysely<Database>, now: number): Promise<DecidedSums> {
  const since = await ledgerStart(db, now);
  const top = await db
    .selectFrom("transactions")
    .select(sql<string | number | null>`max(id)`.as("top"))
    .executeTakeFirst();
  const last = Number(top?.top ?? 0);
  const sums: DecidedSums = { since, firms: new Map(), ibans: new Map() };
  for (let from = 0; from < last; from += PROPOSAL_SLICE) {
    const { rows } = await sql<{
      firm_id: unknown;
      type: string;
      iban: string | null;
      account_id: unknown;
      total: unknown;
    }>`
      SELECT t.firm_id, t.type, a.iban, t.account_id, sum(t.amount) AS total
      FROM transactions t JOIN firms f ON f.id = t.firm_id AND f.sandbox = 0
      LEFT JOIN payment_accounts a ON a.id = t.account_id
      WHERE t.id > ${from} AND t.id <= ${from + PROPOSAL_SLICE} AND t.status = 'approved'
        AND t.decided_at < ${since}
      GROUP BY t.firm_id, t.type, a.iban, t.account_id`.execute(db);
    for (const r of rows) add(sums, r);
    // Between slices the store takes other work first (on SQLite one thread serves every request).
    await new Promise((resolve) => setImmediate(resolve));
  }
  return sums;
}

function add(
  sums: DecidedSums,
  r: { firm_id: unknown; type: string; iban: string | null; account_id: unknown; total: unknown },
): void {
  const total = Number(r.total ?? 0);
  const side = r.type === "deposit" ? "deposits" : "withdrawals";
  const firm = sums.firms.get(Number(r.firm_id)) ?? { deposits: 0, withdrawals: 0 };
  firm[side] += total;
  sums.firms.set(Number(r.firm_id), firm);
  if (r.iban === null) return;
  const iban = sums.ibans.get(r.iban) ?? { accountIds: new Set<number>(), deposits: 0, withdrawals: 0 };
  iban.accountIds.add(Number(r.account_id));
  iban[side] += total;
  sums.ibans.set(r.iban, iban);
}
