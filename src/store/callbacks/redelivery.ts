import { type Kysely, sql } from "kysely";
import { type AuditEntry, writeAudit } from "../audited.js";
import type { Database } from "../schema.js";

/**
 * A callback due now with its retry schedule from the start, as a redelivery makes it. A live lease
 * stays: an attempt still in flight finishes alone, sees the schedule version moved, and hands the
 * row back due at once without writing its own next step (store/callbacks/callbacks.ts recordAttempt); a
 * lease left by a dead worker runs out as any other.
 */
const freshSchedule = (at: number) => ({
  status: "pending" as const,
  step: 0,
  next_attempt_at: at,
  failed_at: null,
  updated_at: at,
  schedule_version: sql<number>`schedule_version + 1`,
});

/**
 * Makes a callback due now with a fresh schedule, whatever its status (an attempt in flight
 * finishes, but no longer moves the schedule), logged with its status before.
 */
export function redeliverCallback(db: Kysely<Database>, callbackId: number, audit: AuditEntry) {
  return db.transaction().execute(async (trx) => {
    const before = await trx
      .selectFrom("callbacks")
      .select(["status", "attempts"])
      .where("id", "=", callbackId)
      .executeTakeFirst();
    if (!before) return undefined;
    const row = await trx
      .updateTable("callbacks")
      .set(freshSchedule(audit.at))
      .where("id", "=", callbackId)
      .returningAll()
      .executeTakeFirstOrThrow();
    await writeAudit(trx, audit, "callback", String(callbackId), before, { status: "pending" });
    return row;
  });
}

/** After a merchant's outage: every callback that failed at or after `since`, as one entry. */
export function redeliverFailedSince(db: Kysely<Database>, since: number, audit: AuditEntry) {
  return db.transaction().execute(async (trx) => {
    const rows = await trx
      .updateTable("callbacks")
      .set(freshSchedule(audit.at))
      .where("status", "=", "failed")
      .where("failed_at", ">=", since)
      .returning("id")
      .execute();
    const ids = rows.map((r) => r.id);
    if (ids.length > 0) {
      const entityId = `failed-since:${new Date(since).toISOString()}`;
      await writeAudit(trx, audit, "callback", entityId, { status: "failed" }, { status: "pending", ids });
    }
    return ids;
  });
}
