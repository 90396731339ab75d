/**
 * What the console's summary reads of the transactions (dashboard/summary.ts), every few
 * seconds on every open console: each only what its figure needs, by index or by a table kept for
 * it, since a busy day holds tens of thousands of rows.
 */
import { type Kysely, sql } from "kysely";
import type { Database } from "../schema.js";

const HOUR_MS = 3_600_000;

export interface HourTotal {
  type: string;
  status: string;
  /** Whole hours from `since`. */
  hour: number;
  count: number;
  volume: number;
}

/**
 * Counts and volumes per type, status and hour of the transactions created since `since`, the
 * start of an hour (Türkiye's days start on one). Test firms' traffic is not business: it is left
 * out. SQLite reads the hours' buckets its triggers keep (migration 20261203T1000_summary_hours);
 * PostgreSQL groups the rows.
 */
export async function totalsSince(
  db: Kysely<Database>,
  dialect: "sqlite" | "postgres",
  since: number,
): Promise<HourTotal[]> {
  if (since % HOUR_MS !== 0) throw new Error(`totalsSince needs the start of an hour, not ${since}`);
  const rows = dialect === "sqlite" ? await fromHours(db, since) : await fromRows(db, since);
  return rows.map((r) => ({
    type: r.type,
    status: r.status,
    hour: Number(r.hour),
    count: Number(r.count),
    volume: Number(r.volume ?? 0),
  }));
}

function fromHours(db: Kysely<Database>, since: number) {
  return (
    db
      .selectFrom("transaction_hours")
      .select([
        "type",
        "status",
        // Integers in the text: better-sqlite3 binds numbers as REAL.
        sql<number>`(hour_start - ${sql.lit(since)}) / ${sql.lit(HOUR_MS)}`.as("hour"),
        (eb) => eb.fn.sum<number>("count").as("count"),
        (eb) => eb.fn.sum<number>("volume").as("volume"),
      ])
      .where("hour_start", ">=", sql.lit(since))
      .where("firm_id", "not in", (eb) => eb.selectFrom("firms").select("id").where("sandbox", "=", 1))
      .groupBy(["type", "status", "hour_start"])
      // Buckets emptied by decisions stay behind with nothing in them.
      .having((eb) => eb.fn.sum("count"), ">", 0)
      .execute()
  );
}

function fromRows(db: Kysely<Database>, since: number) {
  return db
    .selectFrom("transactions")
    .select([
      "type",
      "status",
      sql<number>`CAST((created_at - ${since}) / ${sql.lit(HOUR_MS)} AS INTEGER)`.as("hour"),
      (eb) => eb.fn.countAll<number>().as("count"),
      (eb) => eb.fn.sum<number>("amount").as("volume"),
    ])
    .where("created_at", ">=", since)
    .where("firm_id", "not in", (eb) => eb.selectFrom("firms").select("id").where("sandbox", "=", 1))
    .groupBy(["type", "status", "hour"])
    .execute();
}

/**
 * The median time from creation to decision, in ms, of the transactions decided since `since`
 * (the latest 10,000 at most; the lower middle one of an even count), test firms' left out; null
 * when none was decided. Worked out by the store, from the decision times' index alone, which
 * holds the creation time and the firm (transactions_decided_cover_idx): ten thousand rows sent
 * from the embedded store's thread cost more than finding their middle.
 */
export async function medianDecisionMsSince(db: Kysely<Database>, since: number): Promise<number | null> {
  const latest = db
    .selectFrom("transactions")
    .select(sql<number>`decided_at - created_at`.as("ms"))
    .where("decided_at", ">=", since)
    .where("firm_id", "not in", (eb) => eb.selectFrom("firms").select("id").where("sandbox", "=", 1))
    .orderBy("decided_at", "desc")
    .limit(10_000);
  const row = await db
    .with("latest", () => latest)
    .selectFrom("latest")
    .select("ms")
    .orderBy("ms")
    .limit(1)
    .offset(sql<number>`((SELECT count(*) FROM latest) - 1) / 2`)
    .executeTakeFirst();
  return row === undefined ? null : Number(row.ms);
}

/** Each type's pending transactions, however old: how many, and the oldest one's creation time. */
export async function pendingQueues(db: Kysely<Database>) {
  // Through transactions_pending_idx: the pending rows only.
  const rows = await db
    .selectFrom("transactions")
    .select([
      "type",
      (eb) => eb.fn.countAll<number>().as("count"),
      (eb) => eb.fn.min<number>("created_at").as("oldest"),
    ])
    .where("status", "=", sql.lit("pending"))
    .where("firm_id", "not in", (eb) => eb.selectFrom("firms").select("id").where("sandbox", "=", 1))
    .groupBy("type")
    .execute();
  return rows.map((r) => ({
    type: r.type,
    count: Number(r.count),
    oldestAt: r.oldest === null ? null : Number(r.oldest),
  }));
}
