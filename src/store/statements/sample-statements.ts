import { type Kysely, sql } from "kysely";
import type { Database } from "../schema.js";

/**
 * What a sample statement is made from (reconciliation/sample-statement.ts, docs/reconciliation.md
 * "Sample statements"): the pending deposits it pays, and whether the store has ever held a line a
 * bank or an operator gave, which makes it no development store.
 */

/** Every sample line's bank reference begins so: what tells a sample's lines from a bank's. */
export const SAMPLE_BANK_REF_PREFIX = "PAYINTAKE-SAMPLE-";

export interface SampleDepositRow {
  id: number;
  amount: number;
  first_name: string;
  middle_name: string | null;
  last_name: string;
  created_at: number;
}

export interface SampleStatementRepository {
  /**
   * Live firms' pending deposits on these accounts made from `from` to `to`, oldest first, at most
   * `limit`, that no line settles; and how many more are pending from before `from`.
   */
  pendingDeposits(
    accountIds: readonly number[],
    window: { from: number; to: number },
    limit: number,
  ): Promise<{ deposits: SampleDepositRow[]; pendingBefore: number }>;
  /** Whether any statement line of the store is not a sample's: a bank's, the feed's or an operator's. */
  holdsBankLines(): Promise<boolean>;
}

export function createSampleStatementRepository(db: Kysely<Database>): SampleStatementRepository {
  const pendingLive = (accountIds: readonly number[]) =>
    db
      .selectFrom("transactions as t")
      .innerJoin("firms as f", "f.id", "t.firm_id")
      .where("t.account_id", "in", accountIds)
      .where("t.type", "=", "deposit")
      .where("t.status", "=", "pending")
      .where("f.sandbox", "=", 0)
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(selectFrom("statement_lines as l").select("l.id").whereRef("l.transaction_id", "=", "t.id")),
        ),
      );
  return {
    async pendingDeposits(accountIds, { from, to }, limit) {
      if (accountIds.length === 0) return { deposits: [], pendingBefore: 0 };
      const rows = await pendingLive(accountIds)
        .select(["t.id", "t.amount", "t.first_name", "t.middle_name", "t.last_name", "t.created_at"])
        .where("t.created_at", ">=", from)
        .where("t.created_at", "<=", to)
        .orderBy("t.created_at")
        .orderBy("t.id")
        .limit(limit)
        .execute();
      const before = await pendingLive(accountIds)
        .select(sql<number>`count(*)`.as("n"))
        .where("t.created_at", "<", from)
        .executeTakeFirst();
      return {
        deposits: rows.map((r) => ({
          ...r,
          id: Number(r.id),
          amount: Number(r.amount),
          created_at: Number(r.created_at),
        })),
        pendingBefore: Number(before?.n ?? 0),
      };
    },

    async holdsBankLines() {
      // A bank's line without a reference is keyed by its content: not a sample's either.
      const row = await db
        .selectFrom("statement_lines")
        .select("id")
        .where((eb) =>
          eb.or([eb("bank_ref", "is", null), eb("bank_ref", "not like", `${SAMPLE_BANK_REF_PREFIX}%`)]),
        )
        .limit(1)
        .executeTakeFirst();
      return row !== undefined;
    },
  };
}
