import { type Kysely, type SelectQueryBuilder, sql } from "kysely";
import type { Database } from "../schema.js";
import type { Dialect } from "./summary-hours.js";

/**
 * The lower middle of the `ms` that `rows` gives (the middle one of an odd count), worked out by
 * the store: null when it gives none. The summary's medians are of ten thousand rows at most, and
 * sending them from the store costs more than finding their middle there. PostgreSQL sorts them
 * once (percentile_disc: the first value whose share of the rows reaches one half); SQLite, which
 * has no such aggregate, counts them and takes the one at the middle's offset.
 */
export async function lowerMedian<DB, TB extends keyof DB>(
  db: Kysely<Database>,
  dialect: Dialect,
  rows: SelectQueryBuilder<DB, TB, { ms: number }>,
): Promise<number | null> {
  if (dialect === "postgres") {
    const row = await db
      .selectFrom(rows.as("r"))
      .select(sql<number | null>`percentile_disc(0.5) WITHIN GROUP (ORDER BY r.ms)`.as("ms"))
      .executeTakeFirst();
    return row?.ms === null || row?.ms === undefined ? null : Number(row.ms);
  }
  const row = await db
    .with("latest", () => rows)
    .selectFrom("latest")
    .select("ms")
    .orderBy("ms")
    .limit(1)
    .offset(sql<number>`((SELECT count(*) FROM latest) - 1) / 2`)
    .executeTakeFirst();
  return row === undefined ? null : Number(row.ms);
}
