/**
 * The hours' buckets the console's summary reads (migration 20261208T1000_summary_busy_day): each
 * hour's transactions per firm, type and status, and each hour's deliveries. SQLite's triggers keep
 * the buckets themselves. PostgreSQL's append deltas, so that no deposit waits on a bucket another
 * writer holds, and the minute's fold (jobs/purges.ts) moves them into the buckets: a read takes
 * buckets and deltas together, in one statement and so one snapshot, and counts each change once
 * whether it was folded yet or not.
 */
import { type Kysely, sql } from "kysely";
import type { Database } from "../schema.js";

export type Dialect = "sqlite" | "postgres";

/** The transactions' buckets since `since` (an hour's start), with the deltas not folded yet. */
export function transactionBuckets(db: Kysely<Database>, dialect: Dialect, since: number) {
  const from = (table: "transaction_hours" | "transaction_hour_deltas") =>
    db
      .selectFrom(table)
      .select(["hour_start", "firm_id", "type", "status", "count", "volume", "auto"])
      // Integers in the text: better-sqlite3 binds numbers as REAL.
      .where("hour_start", ">=", sql.lit(since));
  return dialect === "sqlite"
    ? from("transaction_hours")
    : from("transaction_hours").unionAll(from("transaction_hour_deltas"));
}

/** The deliveries' buckets since `since` (an hour's start), with the deltas not folded yet. */
export function deliveryBuckets(db: Kysely<Database>, dialect: Dialect, since: number) {
  const from = (table: "callback_hours" | "callback_hour_deltas") =>
    db.selectFrom(table).select("delivered").where("hour_start", ">=", sql.lit(since));
  return dialect === "sqlite"
    ? from("callback_hours")
    : from("callback_hours").unionAll(from("callback_hour_deltas"));
}

/**
 * Moves up to `limit` deltas of each kind into their buckets, on PostgreSQL; says how many moved of
 * the kind that moved more (none on SQLite, which has no deltas). Each kind in one statement: the
 * deltas deleted and their sums added to the buckets commit together. Deltas another fold holds
 * are skipped, and the buckets are updated in their keys' order, so folds on several instances at
 * once neither wait on each other's deltas nor deadlock on the buckets.
 */
export async function foldHours(db: Kysely<Database>, dialect: Dialect, limit: number): Promise<number> {
  if (dialect === "sqlite") return 0;
  const transactions = await sql<{ n: number }>`WITH moved AS (
      DELETE FROM transaction_hour_deltas WHERE ctid = ANY (ARRAY(
        SELECT ctid FROM transaction_hour_deltas LIMIT ${limit} FOR UPDATE SKIP LOCKED))
      RETURNING hour_start, firm_id, type, status, count, volume, auto),
    folded AS (
      INSERT INTO transaction_hours AS h (hour_start, firm_id, type, status, count, volume, auto)
      SELECT hour_start, firm_id, type, status, sum(count), sum(volume), sum(auto) FROM moved
      GROUP BY hour_start, firm_id, type, status
      ORDER BY hour_start, firm_id, type, status
      ON CONFLICT (hour_start, firm_id, type, status) DO UPDATE
        SET count = h.count + EXCLUDED.count, volume = h.volume + EXCLUDED.volume,
          auto = h.auto + EXCLUDED.auto)
    SELECT count(*)::int AS n FROM moved`.execute(db);
  const deliveries = await sql<{ n: number }>`WITH moved AS (
      DELETE FROM callback_hour_deltas WHERE ctid = ANY (ARRAY(
        SELECT ctid FROM callback_hour_deltas LIMIT ${limit} FOR UPDATE SKIP LOCKED))
      RETURNING hour_start, delivered),
    folded AS (
      INSERT INTO callback_hours AS h (hour_start, delivered)
      SELECT hour_start, sum(delivered) FROM moved GROUP BY hour_start ORDER BY hour_start
      ON CONFLICT (hour_start) DO UPDATE SET delivered = h.delivered + EXCLUDED.delivered)
    SELECT count(*)::int AS n FROM moved`.execute(db);
  return Math.max(Number(transactions.rows[0]?.n ?? 0), Number(deliveries.rows[0]?.n ?? 0));
}
