/**
 * The ledger's guard on payouts (docs/payouts.md, "The ledger's guard"): what each firm's payouts
 * may still take, its room: the firm's balance in the ledger (`firm:<id>`), less what its payouts in
 * live batches not yet sent hold back, plus the overdraft an admin gave it. Read in one statement,
 * so the balance and what is held are of one moment: marking a batch sent moves its payouts out of
 * what is held and, by the same amounts, out of the firm's balance into transit, in one commit.
 *
 * Exact under concurrency when read after `lockFirmBalances` in the write's own transaction: on
 * PostgreSQL a batching and a guarded approval take each of their firms' locks (held to the
 * transaction's end) before reading, so of two instances the second reads what the first wrote
 * (under READ COMMITTED each statement sees what committed before it began). The embedded store
 * runs one write transaction at a time, which serialises them alike.
 */
import { type Kysely, sql, type Transaction } from "kysely";
import { normalBalance } from "../../domain/ledger.js";
import { readScope, settingsFor } from "../../domain/payout-settings.js";
import type { Database } from "../schema.js";

/** Each firm's room, minor units; null where its payouts are not guarded (a test firm, or `balanceGuard` off). */
export type Rooms = Map<number, number | null>;

/** What a firm's room is made of, for the words of a refusal. */
export interface RoomOf {
  firmId: number;
  /** Null: not guarded. */
  room: number | null;
  balance: number;
  held: number;
  overdraft: number;
}

/**
 * The first key of the guard's advisory locks: the two-key form (`pg_advisory_xact_lock(int, int)`)
 * is a lock space apart from the one-key locks taken elsewhere, so a firm's lock never meets them.
 */
const GUARD_LOCK = 48_006;

/**
 * Takes each firm's guard lock for the rest of the transaction, in id order (two batchings of
 * overlapping firms take them in the same order). Nothing on the embedded store: see above.
 */
export async function lockFirmBalances(
  trx: Transaction<Database>,
  dialect: "sqlite" | "postgres",
  firmIds: Iterable<number>,
): Promise<void> {
  if (dialect !== "postgres") return;
  for (const id of [...new Set(firmIds)].sort((a, b) => a - b))
    await sql`SELECT pg_advisory_xact_lock(${GUARD_LOCK}, ${id})`.execute(trx);
}

interface RoomRow {
  id: number | string;
  sandbox: number;
  overdraft: number | string | null;
  entries: number | string | null;
  held: number | string | null;
}

/** The firms' rooms and what makes them up, in one statement (`'firm:' || id`: domain/ledger.ts's firmAccount). */
export async function roomsOf(
  q: Kysely<Database> | Transaction<Database>,
  firmIds: Iterable<number>,
): Promise<RoomOf[]> {
  const ids = [...new Set(firmIds)];
  if (ids.length === 0) return [];
  const { rows } = await sql<RoomRow>`
    SELECT f.id, f.sandbox, f.overdraft,
      (SELECT COALESCE(SUM(b.balance), 0) FROM ledger_accounts a
        JOIN ledger_balances b ON b.account_id = a.id
        WHERE a.key = 'firm:' || CAST(f.id AS TEXT)) AS entries,
      (SELECT COALESCE(SUM(p.amount), 0) FROM payout_attempts p
        WHERE p.firm_id = f.id AND p.stage IN ('batched', 'second_approval')) AS held
    FROM firms f
    WHERE f.id IN (${sql.join(ids)})`.execute(q);
  const guarded = await guardedFirms(q, ids);
  return rows.map((r) => {
    const firmId = Number(r.id);
    const balance = normalBalance("firm", Number(r.entries ?? 0));
    const held = Number(r.held ?? 0);
    const overdraft = Number(r.overdraft ?? 0);
    const room = Number(r.sandbox) === 0 && guarded.has(firmId) ? balance - held + overdraft : null;
    return { firmId, room, balance, held, overdraft };
  });
}

/**
 * The firms whose payouts the ledger's guard holds (`balanceGuard` in force: the firm's own setting,
 * else the service's, else on). Read beside the room, not in its statement: a setting is no money,
 * and one changed meanwhile is an admin's word either way.
 */
async function guardedFirms(
  q: Kysely<Database> | Transaction<Database>,
  ids: readonly number[],
): Promise<Set<number>> {
  const rows = await q
    .selectFrom("payout_settings")
    .select(["scope", "settings"])
    .where("scope", "in", ["all", ...ids.map((id) => `firm:${id}`)])
    .execute();
  const stored = new Map(rows.map((r) => [r.scope, JSON.parse(r.settings) as Record<string, unknown>]));
  const service = readScope(stored.get("all"));
  return new Set(
    ids.filter((id) => settingsFor(service, readScope(stored.get(`firm:${id}`)), {}).balanceGuard),
  );
}

/** The rooms by firm. */
export const roomsByFirm = (rooms: readonly RoomOf[]): Rooms => new Map(rooms.map((r) => [r.firmId, r.room]));
