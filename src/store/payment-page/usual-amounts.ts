import type { Kysely } from "kysely";
import type { Database } from "../schema.js";

/**
 * A firm's recent approved deposits, the sample its usual amount is judged by (the payment page's
 * warning of an unusual amount, payment-page/usual-amount.ts).
 */
export interface UsualAmountRepository {
  /**
   * The amounts (minor units) of the firm's newest approved deposits made since `since`, at most
   * `limit` of them, smallest first.
   */
  recentApprovedDeposits(firmId: number, since: number, limit: number): Promise<number[]>;
}

/** The first transaction made since `since`, through transactions_created_idx: the window's first id. */
export function windowStartQuery(db: Kysely<Database>, since: number) {
  return db
    .selectFrom("transactions")
    .select("id")
    .where("created_at", ">=", since)
    .orderBy("created_at")
    .limit(1);
}

/**
 * The firm's approved deposits from `fromId` on, newest first, through transactions_firm_idx
 * (firm_id, id): the firm's history before the window is never walked, and a busy firm's reading
 * stops after `limit` rows. The window is that range of ids, with no condition on the rows' own
 * times, which would let the planner read every firm's window by the date index instead.
 */
export function recentApprovedQuery(db: Kysely<Database>, firmId: number, fromId: number, limit: number) {
  return db
    .selectFrom("transactions")
    .select("amount")
    .where("firm_id", "=", firmId)
    .where("id", ">=", fromId)
    .where("type", "=", "deposit")
    .where("status", "=", "approved")
    .orderBy("id", "desc")
    .limit(limit);
}

export function createUsualAmountRepository(db: Kysely<Database>): UsualAmountRepository {
  return {
    async recentApprovedDeposits(firmId, since, limit) {
      // Two statements, not one with the first as its subquery: given the id itself, PostgreSQL's
      // planner weighs the window by its statistics (a small firm's few rows in it: the firm's
      // index); a subquery's value it cannot see, and it guesses a third of the table. Ids follow
      // creation times but for instances whose clocks differ by moments: a row at the window's edge
      // may be counted or left out, which a month's median does not feel.
      const first = await windowStartQuery(db, since).executeTakeFirst();
      if (!first) return [];
      const rows = await recentApprovedQuery(db, firmId, Number(first.id), limit).execute();
      return rows.map((r) => Number(r.amount)).sort((a, b) => a - b);
    },
  };
}
