import type { Kysely, Selectable } from "kysely";
import type { Database, PaymentSessionTable } from "./schema.js";

export type SessionRow = Selectable<PaymentSessionTable>;

export interface SessionRepository {
  create(values: Omit<SessionRow, "id" | "status" | "transaction_id">): Promise<SessionRow>;
  byTokenHash(hash: string): Promise<SessionRow | undefined>;
  /** Open → assigned, once: false when another submission got there first. */
  markAssigned(id: number, transactionId: number, now: number): Promise<boolean>;
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
  };
}
