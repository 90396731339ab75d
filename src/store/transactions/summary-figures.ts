/**
 * What the console's summary reads (dashboard/summary.ts), every few seconds on every open console:
 * each only what its figure needs, by index or from the hours' buckets (summary-hours.ts), since a
 * busy day holds hundreds of thousands of rows and the summary must not read them.
 */
import { type Kysely, sql } from "kysely";
import type { Database } from "../schema.js";
import { type CreditFigures, creditFigures } from "../statements/summary-line-figures.js";
import { type Dialect, deliveryBuckets, foldHours, transactionBuckets } from "./summary-hours.js";
import { lowerMedian } from "./summary-median.js";

const HOUR_MS = 3_600_000;

/**
 * The medians (time to decision, a line's credit to its callback) are of the latest this many of
 * the day at most: their middle moves little past a few thousand, and finding it costs their number.
 */
export const MEDIAN_OF_LATEST = 10_000;

export interface HourTotal {
  type: string;
  status: string;
  /** Whole hours from `since`. */
  hour: number;
  count: number;
  volume: number;
  /** Of `count`, those the statement rule decided (`service:reconcile`). */
  auto: number;
}

export interface SummaryFigureRepository {
  /** Counts, volumes and statement approvals per type, status and hour of the live firms' transactions since `since`, an hour's start. */
  totalsSince(since: number): Promise<HourTotal[]>;
  /** The median ms from creation to decision of those decided since `since`. */
  medianDecisionMsSince(since: number): Promise<number | null>;
  /** Live firms' pending transactions of each type: how many, and when the oldest was created. */
  pendingQueues(): Promise<{ type: string; count: number; oldestAt: number | null }[]>;
  /** How many callbacks were last delivered at or after `since`, an hour's start. */
  deliveredSince(since: number): Promise<number>;
  /** What bank statement lines did between `from` and `to`, and the money no deposit took yet. */
  credits(from: number, to: number, actor: string): Promise<CreditFigures>;
  /** PostgreSQL: moves up to `limit` of each kind of the buckets' deltas into them (the minute's fold). */
  foldHours(limit: number): Promise<number>;
}

export function createSummaryFigureRepository(
  db: Kysely<Database>,
  dialect: Dialect,
): SummaryFigureRepository {
  return {
    totalsSince: (since) => totalsSince(db, dialect, since),
    medianDecisionMsSince: (since) => medianDecisionMsSince(db, dialect, since),
    pendingQueues: () => pendingQueues(db, dialect),
    deliveredSince: (since) => deliveredSince(db, dialect, since),
    credits: (from, to, actor) => creditFigures(db, dialect, from, to, actor, MEDIAN_OF_LATEST),
    foldHours: (limit) => foldHours(db, dialect, limit),
  };
}

function hourStart(since: number, what: string): void {
  if (since % HOUR_MS !== 0) throw new Error(`${what} needs the start of an hour, not ${since}`);
}

/**
 * Per type, status and hour, from the buckets: a few hundred rows whatever the day holds. Test
 * firms' traffic is not business: it is left out.
 */
export async function totalsSince(
  db: Kysely<Database>,
  dialect: Dialect,
  since: number,
): Promise<HourTotal[]> {
  hourStart(since, "totalsSince");
  const rows = await db
    .selectFrom(transactionBuckets(db, dialect, since).as("h"))
    .select([
      "type",
      "status",
      sql<number>`(hour_start - ${sql.lit(since)}) / ${sql.lit(HOUR_MS)}`.as("hour"),
      (eb) => eb.fn.sum<number>("count").as("count"),
      (eb) => eb.fn.sum<number>("volume").as("volume"),
      (eb) => eb.fn.sum<number>("auto").as("auto"),
    ])
    .where("firm_id", "not in", (eb) => eb.selectFrom("firms").select("id").where("sandbox", "=", 1))
    .groupBy(["type", "status", "hour_start"])
    // Buckets emptied by decisions stay behind with nothing in them.
    .having((eb) => eb.fn.sum("count"), ">", 0)
    .execute();
  return rows.map((r) => ({
    type: r.type,
    status: r.status,
    hour: Number(r.hour),
    count: Number(r.count),
    volume: Number(r.volume ?? 0),
    auto: Number(r.auto ?? 0),
  }));
}

export async function deliveredSince(db: Kysely<Database>, dialect: Dialect, since: number): Promise<number> {
  hourStart(since, "deliveredSince");
  const row = await db
    .selectFrom(deliveryBuckets(db, dialect, since).as("d"))
    .select((eb) => eb.fn.sum<number>("delivered").as("n"))
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/**
 * The median time from creation to decision, in ms, of the transactions decided since `since`
 * (the latest MEDIAN_OF_LATEST at most; the lower middle one of an even count), test firms' left
 * out; null when none was decided. From the decision times' index alone, which holds the creation
 * time and the firm (transactions_decided_cover_idx).
 */
export function medianDecisionMsSince(
  db: Kysely<Database>,
  dialect: Dialect,
  since: number,
): Promise<number | null> {
  const latest = db
    .selectFrom("transactions")
    .select(sql<number>`decided_at - created_at`.as("ms"))
    .where("decided_at", ">=", since)
    .where("firm_id", "not in", (eb) => eb.selectFrom("firms").select("id").where("sandbox", "=", 1))
    .orderBy("decided_at", "desc")
    .limit(MEDIAN_OF_LATEST);
  return lowerMedian(db, dialect, latest);
}

/**
 * Each type's pending transactions, however old: how many, and the oldest one's creation time.
 * SQLite reads both from transactions_pending_created_idx alone (creation time, type and firm of
 * the pending rows). PostgreSQL counts them from the buckets' pending rows, which keep every hour's
 * (an index-only count there visits the table for the rows written since its last vacuum: most of
 * a busy day's), and finds the oldest in the oldest hour that holds one, by transactions_status_idx
 * (status, creation time): the pending rows of one hour. Both in one statement, so one snapshot.
 */
export async function pendingQueues(db: Kysely<Database>, dialect: Dialect) {
  const rows =
    dialect === "sqlite"
      ? await db
          .selectFrom("transactions")
          .select([
            "type",
            (eb) => eb.fn.countAll<number>().as("count"),
            (eb) => eb.fn.min<number>("created_at").as("oldest"),
          ])
          .where("status", "=", sql.lit("pending"))
          .where("firm_id", "not in", (eb) => eb.selectFrom("firms").select("id").where("sandbox", "=", 1))
          .groupBy("type")
          .execute()
      : (await pendingFromBuckets.execute(db)).rows;
  return rows.map((r) => ({
    type: r.type,
    count: Number(r.count),
    oldestAt: r.oldest === null ? null : Number(r.oldest),
  }));
}

/** PostgreSQL: the buckets' pending rows that are not empty, with the pending deltas not folded yet. */
const pendingFromBuckets = sql<{ type: string; count: number; oldest: number | null }>`
  WITH test_firms AS (SELECT id FROM firms WHERE sandbox = 1),
  pending AS (
    SELECT type, firm_id, hour_start, count FROM transaction_hours
    WHERE status = 'pending' AND count <> 0
    UNION ALL
    SELECT type, firm_id, hour_start, count FROM transaction_hour_deltas WHERE status = 'pending'),
  hours AS (
    SELECT type, hour_start, sum(count) AS n FROM pending
    WHERE firm_id NOT IN (SELECT id FROM test_firms)
    GROUP BY type, hour_start HAVING sum(count) > 0),
  queues AS (SELECT type, sum(n) AS count, min(hour_start) AS hour FROM hours GROUP BY type)
  SELECT q.type, q.count, (
    SELECT min(t.created_at) FROM transactions t
    WHERE t.status = 'pending' AND t.type = q.type
      AND t.created_at >= q.hour AND t.created_at < q.hour + ${sql.lit(HOUR_MS)}
      AND t.firm_id NOT IN (SELECT id FROM test_firms)) AS oldest
  FROM queues q`;
