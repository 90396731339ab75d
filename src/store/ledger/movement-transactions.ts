import { type Kysely, sql } from "kysely";
import type { Database } from "../schema.js";

/** The transaction a ledger movement belongs to, as its merchant knows it. */
export interface MovementTransaction {
  transactionId: number;
  reference: string;
}

/** What a page of movements names: approvals by transaction id, a payout's stages by attempt id. */
export interface MovementSources {
  transactions: readonly number[];
  attempts: readonly number[];
}

export interface MovementTransactions {
  byTransaction: Map<number, MovementTransaction>;
  byAttempt: Map<number, MovementTransaction>;
}

export interface MovementTransactionRepository {
  /**
   * The firm's transactions behind a page of its ledger movements (a merchant's balance day), in
   * one statement. Only the firm's own: an id that names another firm's transaction or payout finds
   * nothing, so a movement never shows what is not the caller's.
   */
  of(firmId: number, sources: MovementSources): Promise<MovementTransactions>;
}

export function createMovementTransactionRepository(db: Kysely<Database>): MovementTransactionRepository {
  return {
    async of(firmId, sources) {
      const found: MovementTransactions = { byTransaction: new Map(), byAttempt: new Map() };
      // `IN ()` is no SQL: an empty side is left out, and an empty page asks nothing.
      const direct =
        sources.transactions.length === 0
          ? undefined
          : db
              .selectFrom("transactions as t")
              .select([sql<string>`'transaction'`.as("via"), "t.id as source", "t.id as tx", "t.reference"])
              .where("t.firm_id", "=", firmId)
              .where("t.id", "in", [...sources.transactions]);
      const paidOut =
        sources.attempts.length === 0
          ? undefined
          : db
              .selectFrom("payout_attempts as a")
              .innerJoin("transactions as t", "t.id", "a.transaction_id")
              .select([sql<string>`'attempt'`.as("via"), "a.id as source", "t.id as tx", "t.reference"])
              .where("a.firm_id", "=", firmId)
              .where("t.firm_id", "=", firmId)
              .where("a.id", "in", [...sources.attempts]);
      const query = direct && paidOut ? direct.unionAll(paidOut) : (direct ?? paidOut);
      if (!query) return found;
      for (const row of await query.execute()) {
        const tx = { transactionId: Number(row.tx), reference: row.reference };
        (row.via === "attempt" ? found.byAttempt : found.byTransaction).set(Number(row.source), tx);
      }
      return found;
    },
  };
}
