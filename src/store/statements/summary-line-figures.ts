/**
 * What the console's summary reads of the bank statements' lines (dashboard/summary.ts): how fast a
 * line's credit reached the merchant as a callback, and the money no deposit took yet. How many of
 * today's deposits a line approved comes from the hours' buckets (store/transactions/summary-figures.ts).
 */
import { type Kysely, sql } from "kysely";
import type { Database } from "../schema.js";
import type { Dialect } from "../transactions/summary-hours.js";
import { lowerMedian } from "../transactions/summary-median.js";

export interface CreditFigures {
  /**
   * From a line's arrival to its callback's delivery, the median in ms of the deposits lines
   * approved in the window (of the latest `latest` of them at most; the lower middle one of an even
   * count); null when none was delivered.
   */
  creditToCallbackMs: number | null;
  /** Lira credits no deposit took yet (suggested, unmatched, paid after cancellation): count and sum. */
  openCredits: number;
  openAmount: number;
}

export async function creditFigures(
  db: Kysely<Database>,
  dialect: Dialect,
  from: number,
  to: number,
  actor: string,
  latest: number,
): Promise<CreditFigures> {
  const lines = db
    .selectFrom("statement_lines as l")
    .innerJoin("callbacks as c", "c.transaction_id", "l.transaction_id")
    .select(sql<number>`c.delivered_at - l.created_at`.as("ms"))
    .where("l.decided_by", "=", actor)
    .where("l.decided_at", ">=", from)
    .where("l.decided_at", "<", to)
    .where("c.delivered_at", "is not", null)
    .orderBy("l.decided_at", "desc")
    .limit(latest);
  const [median, open] = await Promise.all([
    lowerMedian(db, dialect, lines),
    db
      .selectFrom("statement_lines")
      .select((eb) => [eb.fn.countAll<number>().as("n"), eb.fn.sum<number>("amount").as("total")])
      .where("state", "in", ["suggested", "unmatched", "after_cancellation"])
      .where("direction", "=", "credit")
      .where("currency", "=", "TRY")
      .executeTakeFirstOrThrow(),
  ]);
  return {
    creditToCallbackMs: median,
    openCredits: Number(open.n),
    openAmount: Number(open.total ?? 0),
  };
}
