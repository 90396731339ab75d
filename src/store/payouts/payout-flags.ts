/**
 * An attempt's flag cleared by an operator who checked it (payout-batches.ts's `clearFlag`).
 */
import type { Kysely } from "kysely";
import { writeAudit } from "../audited.js";
import type { Database } from "../schema.js";

export interface FlagClearing {
  attemptId: number;
  flag: string;
  actor: string;
  now: number;
  note: string | null;
}

export type FlagClear =
  | { ok: true; transactionId: number }
  | { ok: false; reason: "not_found" }
  /** Still sent: the watch would raise it again, and a channel's mismatch keeps it from approval. */
  | { ok: false; reason: "live" }
  /** Its flag is not (or no longer) the one the operator checked. */
  | { ok: false; reason: "changed"; flag: string | null };

/**
 * Clears a flag once an operator checked it: only on an attempt that has ended (a sent one's flag
 * is the watch's and the channel's to lift), and only if it still carries the flag the operator
 * saw (a flag raised meanwhile is not cleared unseen). The update is conditional on both.
 */
export function clearFlag(db: Kysely<Database>, c: FlagClearing): Promise<FlagClear> {
  return db.transaction().execute(async (trx): Promise<FlagClear> => {
    const row = await trx
      .updateTable("payout_attempts")
      .set({ flag: null, updated_at: c.now })
      .where("id", "=", c.attemptId)
      .where("flag", "=", c.flag)
      .where("stage", "not in", ["second_approval", "batched", "sent"])
      .returning("transaction_id")
      .executeTakeFirst();
    if (!row) {
      const now = await trx
        .selectFrom("payout_attempts")
        .select(["stage", "flag"])
        .where("id", "=", c.attemptId)
        .executeTakeFirst();
      if (!now) return { ok: false, reason: "not_found" };
      if (now.flag === c.flag) return { ok: false, reason: "live" };
      return { ok: false, reason: "changed", flag: now.flag };
    }
    await writeAudit(
      trx,
      { actor: c.actor, action: "payout.flag_cleared", at: c.now },
      "transaction",
      String(row.transaction_id),
      { flag: c.flag },
      { attempt: c.attemptId, flag: null, ...(c.note ? { note: c.note } : {}) },
    );
    return { ok: true, transactionId: Number(row.transaction_id) };
  });
}
