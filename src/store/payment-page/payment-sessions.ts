import { type Kysely, type Selectable, sql } from "kysely";
import type { Database, PaymentSessionTable } from "../schema.js";

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
  scrubEnded(before: number, limit: number): Promise<number>;
  /**
   * Deletes up to `limit` sessions that ended before `before`, the oldest first, but none whose
   * deposit is still pending: once its link is this old, a page answers 404 like any unknown one
   * (docs/hosted-page.md).
   */
  purgeEnded(before: number, limit: number): Promise<number>;
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
    async scrubEnded(before, limit) {
      const result = await db
        .updateTable("payment_sessions")
        .set({ request_sealed: "" })
        .where("id", "in", (eb) =>
          eb
            .selectFrom("payment_sessions")
            .select("id")
            .where("expires_at", "<", before)
            // A literal, so that the partial index payment_sessions_unscrubbed_idx applies.
            .where("request_sealed", "<>", sql.lit(""))
            .orderBy("expires_at")
            .limit(limit),
        )
        .executeTakeFirst();
      return Number(result.numUpdatedRows);
    },
    async purgeEnded(before, limit) {
      const result = await db
        .deleteFrom("payment_sessions")
        .where("id", "in", (eb) =>
          eb
            .selectFrom("payment_sessions")
            .select("id")
            .where("expires_at", "<", before)
            // A page whose deposit still waits keeps showing the account to pay into, however old
            // (auto-cancel may be off): it stays until the deposit is decided.
            .where((eb) =>
              eb.or([
                eb("transaction_id", "is", null),
                eb.not(
                  eb.exists(
                    eb
                      .selectFrom("transactions")
                      .select("transactions.id")
                      .whereRef("transactions.id", "=", "payment_sessions.transaction_id")
                      .where("transactions.status", "=", sql.lit("pending")),
                  ),
                ),
              ]),
            )
            .orderBy("expires_at")
            .limit(limit),
        )
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
