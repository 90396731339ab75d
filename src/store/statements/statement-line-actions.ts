/**
 * What operators do with a line the matching left to them: approve a deposit with it (the line and
 * the decision in one database transaction, so neither is ever half-written), or say it is not
 * ours. Only a line still open moves: two operators acting on it at once, one of them wins.
 */
import type { Kysely, Transaction } from "kysely";
import type { PostingDraft } from "../../domain/ledger.js";
import { writeAudit } from "../audited.js";
import { type DecisionResult, type DecisionWrite, decideWithin } from "../decisions/decisions.js";
import { uniqueViolation } from "../engine/errors.js";
import { post } from "../ledger/ledger.js";
import { deadlock } from "../payouts/payout-errors.js";
import type { Database, StatementLineState } from "../schema.js";

export const OPEN_CREDIT: readonly StatementLineState[] = ["suggested", "unmatched"];
export const MAY_BE_NOT_OURS: readonly StatementLineState[] = [
  "suggested",
  "unmatched",
  "after_cancellation",
];

export type SettleResult =
  | { ok: true; decided: DecisionResult & { ok: true } }
  | { ok: false; reason: "line_moved" | "not_pending" | "not_found" | "settled_elsewhere" };

class Undone extends Error {
  constructor(readonly reason: "not_pending" | "not_found" | "settled_elsewhere") {
    super(reason);
  }
}

/** How many times a settling PostgreSQL ended in a deadlock is made again before it fails. */
const SETTLE_TRIES = 3;

/**
 * An open credit line approves a pending deposit, both in one database transaction; made again,
 * whole, when PostgreSQL ends it in a deadlock (a statement's batch deciding the same firm's
 * deposits takes the ledger's rows and the firm's in another order).
 */
export async function settleLine(
  db: Kysely<Database>,
  lineId: number,
  write: DecisionWrite,
): Promise<SettleResult> {
  for (let tries = 1; ; tries++) {
    try {
      return await settleOnce(db, lineId, write);
    } catch (err) {
      if (!deadlock(err) || tries >= SETTLE_TRIES) throw err;
    }
  }
}

async function settleOnce(db: Kysely<Database>, lineId: number, write: DecisionWrite): Promise<SettleResult> {
  try {
    return await db.transaction().execute(async (trx) => {
      const elsewhere = await trx
        .selectFrom("statement_lines")
        .select("id")
        .where("transaction_id", "=", write.transactionId)
        .executeTakeFirst();
      if (elsewhere) throw new Undone("settled_elsewhere");
      const moved = await trx
        .updateTable("statement_lines")
        .set({
          state: "approved",
          transaction_id: write.transactionId,
          decided_at: write.now,
          decided_by: write.decidedBy,
        })
        .where("id", "=", lineId)
        .where("direction", "=", "credit")
        .where("state", "in", OPEN_CREDIT)
        .executeTakeFirst();
      if (Number(moved.numUpdatedRows) !== 1) return { ok: false as const, reason: "line_moved" as const };
      const decided = await decideWithin(trx, write);
      if (!decided.ok) throw new Undone(decided.reason);
      return { ok: true as const, decided };
    });
  } catch (err) {
    if (err instanceof Undone) return { ok: false, reason: err.reason };
    // Another line settled the deposit between the check and the write (the unique index).
    if (uniqueViolation(err) !== null) return { ok: false, reason: "settled_elsewhere" };
    throw err;
  }
}

/**
 * The money of a line marked not ours, owed back to its payer: the posting that moves it out of
 * suspense, given the line's amount. Only a line the ledger holds is asked (one written before the
 * ledger began never came into it).
 */
export type RefundDue = (line: { lineId: number; amount: number }) => PostingDraft;

/**
 * The line marked not ours (to be refunded), audited, and the money it held owed back to its payer,
 * in one database transaction; false when it is no longer open.
 */
export async function markNotOurs(
  db: Kysely<Database>,
  lineId: number,
  audit: { actor: string; at: number; note: string | null },
  refundDue: RefundDue,
): Promise<boolean> {
  return db.transaction().execute(async (trx: Transaction<Database>) => {
    const before = await trx
      .selectFrom("statement_lines")
      .select(["state", "amount", "held_posting_id"])
      .where("id", "=", lineId)
      .executeTakeFirst();
    const moved = await trx
      .updateTable("statement_lines")
      .set({ state: "not_ours", decided_at: audit.at, decided_by: audit.actor })
      .where("id", "=", lineId)
      .where("state", "in", MAY_BE_NOT_OURS)
      .executeTakeFirst();
    if (Number(moved.numUpdatedRows) !== 1) return false;
    if (before?.held_posting_id != null)
      await post(trx, refundDue({ lineId, amount: Number(before.amount) }));
    await writeAudit(
      trx,
      { actor: audit.actor, action: "statement_line.not_ours", at: audit.at },
      "statement_line",
      String(lineId),
      { state: before?.state ?? null },
      { state: "not_ours", note: audit.note },
    );
    return true;
  });
}
