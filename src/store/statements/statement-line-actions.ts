/**
 * What operators do with a line the matching left to them: approve a deposit with it (the line and
 * the decision in one database transaction, so neither is ever half-written), or say it is not
 * ours. Only a line still open moves: two operators acting on it at once, one of them wins.
 */
import type { Kysely, Transaction } from "kysely";
import { writeAudit } from "../audited.js";
import { type DecisionResult, type DecisionWrite, decideWithin } from "../decisions/decisions.js";
import { uniqueViolation } from "../engine/errors.js";
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

export async function settleLine(
  db: Kysely<Database>,
  lineId: number,
  write: DecisionWrite,
): Promise<SettleResult> {
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

/** The line marked not ours (to be refunded), audited; false when it is no longer open. */
export async function markNotOurs(
  db: Kysely<Database>,
  lineId: number,
  audit: { actor: string; at: number; note: string | null },
): Promise<boolean> {
  return db.transaction().execute(async (trx: Transaction<Database>) => {
    const before = await trx
      .selectFrom("statement_lines")
      .select(["state"])
      .where("id", "=", lineId)
      .executeTakeFirst();
    const moved = await trx
      .updateTable("statement_lines")
      .set({ state: "not_ours", decided_at: audit.at, decided_by: audit.actor })
      .where("id", "=", lineId)
      .where("state", "in", MAY_BE_NOT_OURS)
      .executeTakeFirst();
    if (Number(moved.numUpdatedRows) !== 1) return false;
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

/** Today's figures for the console's summary (times in ms). */
export interface LineFigures {
  /** Deposits made in the window and approved, and of them those a statement line approved. */
  approved: number;
  approvedByStatement: number;
  /** For each deposit a line approved in the window: from the line's arrival to its callback's delivery. */
  creditToCallbackMs: number[];
  /** Lira credits no deposit took yet (suggested, unmatched, paid after cancellation): count and sum. */
  openCredits: number;
  openAmount: number;
}

export async function lineFigures(
  db: Kysely<Database>,
  from: number,
  to: number,
  actor: string,
): Promise<LineFigures> {
  const approved = await db
    .selectFrom("transactions")
    .select((eb) => [
      eb.fn.countAll<number>().as("n"),
      eb.fn.sum<number>(eb.case().when("decided_by", "=", actor).then(1).else(0).end()).as("auto"),
    ])
    .where("type", "=", "deposit")
    .where("status", "=", "approved")
    .where("created_at", ">=", from)
    .where("created_at", "<", to)
    .executeTakeFirstOrThrow();
  const latencies = await db
    .selectFrom("statement_lines as l")
    .innerJoin("callbacks as c", "c.transaction_id", "l.transaction_id")
    .select(["l.created_at as line_at", "c.delivered_at"])
    .where("l.decided_by", "=", actor)
    .where("l.decided_at", ">=", from)
    .where("l.decided_at", "<", to)
    .where("c.delivered_at", "is not", null)
    .execute();
  const open = await db
    .selectFrom("statement_lines")
    .select((eb) => [eb.fn.countAll<number>().as("n"), eb.fn.sum<number>("amount").as("total")])
    .where("state", "in", ["suggested", "unmatched", "after_cancellation"])
    .where("direction", "=", "credit")
    .where("currency", "=", "TRY")
    .executeTakeFirstOrThrow();
  return {
    approved: Number(approved.n),
    approvedByStatement: Number(approved.auto ?? 0),
    creditToCallbackMs: latencies.map((r) => Number(r.delivered_at) - Number(r.line_at)),
    openCredits: Number(open.n),
    openAmount: Number(open.total ?? 0),
  };
}
