import { type Kysely, sql } from "kysely";
import type { Database } from "../schema.js";

/** Ids from `first` to `last`, both counted; an empty range has `first > last`. */
export interface IdRange {
  first: number;
  last: number;
}

const DAY_MS = 86_400_000;

/**
 * The ids that every transaction created in [from, to) lies between (SQLite: the
 * `transaction_days` table of migration 20261202T1000_transaction_days). Whole UTC days: a few
 * rows either side of the window are in the range too, and the search's own date conditions
 * leave them out.
 */
export async function idRangeOfDays(db: Kysely<Database>, from?: number, to?: number): Promise<IdRange> {
  let q = db
    .selectFrom("transaction_days")
    .select([
      (eb) => eb.fn.min<number | null>("first_id").as("first"),
      (eb) => eb.fn.max<number | null>("last_id").as("last"),
    ]);
  // Truncated as SQLite's integer division truncates the rows' days (the migration's triggers);
  // integers in the text, since better-sqlite3 binds a number as REAL.
  if (from !== undefined) q = q.where("day", ">=", sql.lit(Math.trunc(from / DAY_MS)));
  if (to !== undefined) q = q.where("day", "<=", sql.lit(Math.trunc((to - 1) / DAY_MS)));
  const row = await q.executeTakeFirst();
  if (row?.first == null || row.last == null) return { first: 1, last: 0 };
  return { first: Number(row.first), last: Number(row.last) };
}
