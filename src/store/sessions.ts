import type { Kysely, Selectable } from "kysely";
import type { Database, PaymentSessionTable } from "./schema.js";

export type SessionRow = Selectable<PaymentSessionTable>;

export interface SessionRepository {
  create(values: Omit<SessionRow, "id" | "status" | "transaction_id">): Promise<SessionRow>;
  byTokenHash(hash: string): Promise<SessionRow | undefined>;
  /** Open → assigned, once: false when another submission got there first. */
  markAssigned(id: number, transactionId: number, now: number): Promise<boolean>;
  /**
   * Drops the payer's details (sealed) from sessions that ended before `before`: nothing reads them
   * once a session can no longer be submitted. The row stays, so its page still says it expired.
   */
  scrubEnded(before: number): Promise<number>;
}

export function createSessionRepository(db: Kysely<Database>): SessionRepository {
  return {
    create(values) {
      return db
        .insertInto("payment_sessions")
        .values({ ...values, status: "open", transaction_id: null })
        .returningAll()
        .executeTakeFirstOrThrow();
    },
    byTokenHash(hash) {
      return db.selectFrom("payment_sessions").selectAll().where("token_hash", "=", hash).executeTakeFirst();
    },
    async markAssigned(id, transactionId, now) {
      const result = await db
        .updateTable("payment_sessions")
        .set({ status: "assigned", transaction_id: transactionId, updated_at: now })
        .where("id", "=", id)
        .where("status", "=", "open")
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },
    async scrubEnded(before) {
      const result = await db
        .updateTable("payment_sessions")
        .set({ request_sealed: "" })
        .where("expires_at", "<", before)
        .where("request_sealed", "<>", "")
        .executeTakeFirst();
      return Number(result.numUpdatedRows);
    },
  };
}
