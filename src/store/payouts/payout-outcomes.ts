/**
 * How a sent payout ends, by the bank's statement or a payout channel: paid (the attempt, then the
 * withdrawal's approval with its callback, in one database transaction), returned (back to the
 * operators, or flagged when it was approved already), failed (refused by a channel); a return or
 * a failure posts the money back to the firm in the ledger with the move. Every move is
 * conditional on the attempt's stage (`WHERE stage = 'sent'`), so a proof read twice, by two
 * instances or by a channel and a statement at once, pays once; the other is told it moved.
 */
import { type Kysely, sql, type Transaction } from "kysely";
import { writeAudit } from "../audited.js";
import { type DecisionWrite, decideWithin } from "../decisions/decisions.js";
import type { Database } from "../schema.js";
import { postReturn } from "./payout-postings.js";

export interface PayWrite {
  attemptIds: readonly number[];
  /** The statement line that proves it, when a line does (a channel's final word: none). */
  lineId: number | null;
  actor: string;
  now: number;
  /** The withdrawal's approval, for the attempt's transaction. */
  decision(transactionId: number): DecisionWrite;
}

export interface PaidAttempt {
  attemptId: number;
  transactionId: number;
  callbackId: number;
}

export type ReturnResult = "returned" | "returned_after_paid" | "moved";

/** The payouts of these accounts a statement's lines are compared with (store rows). */
export interface PoolRow {
  id: number;
  transaction_id: number;
  batch_id: number;
  payment_id: string;
  amount: number;
  payee_iban: string;
  payee_name: string;
  stage: string;
  sent_at: number | null;
  /** A later attempt of the same withdrawal exists: this one is superseded. */
  later: number;
  /** A statement line already proves its debit / its return (1), or none does (0). */
  has_debit: number;
  has_return: number;
}

/** Pays the attempts still sent (the others moved meanwhile), each with its approval. */
export async function payWithin(trx: Transaction<Database>, write: PayWrite): Promise<PaidAttempt[]> {
  return (await payOrLinkWithin(trx, write)).paid;
}

/**
 * Pays the attempts still sent, and ties the line to those a channel's final word paid already
 * (their debit, arriving after: the money's proof, not a second payment). `linked` names those.
 */
export async function payOrLinkWithin(
  trx: Transaction<Database>,
  write: PayWrite,
): Promise<{ paid: PaidAttempt[]; linked: number[] }> {
  const paid: PaidAttempt[] = [];
  const linked: number[] = [];
  for (const attemptId of write.attemptIds) {
    const moved = await trx
      .updateTable("payout_attempts")
      // A channel's unknown answer is settled by the payment: its flag goes with it.
      .set({
        stage: "paid",
        ended_at: write.now,
        updated_at: write.now,
        flag: sql<string | null>`CASE WHEN flag = 'channel_unknown' THEN NULL ELSE flag END`,
      })
      .where("id", "=", attemptId)
      .where("stage", "=", "sent")
      .returning("transaction_id")
      .executeTakeFirst();
    if (!moved) {
      if (write.lineId !== null && (await linkDebitOfPaid(trx, attemptId, write.lineId)))
        linked.push(attemptId);
      continue;
    }
    const transactionId = Number(moved.transaction_id);
    const decided = await decideWithin(trx, write.decision(transactionId));
    // The database refuses any other decision while the attempt was live: only a bug gets here.
    if (!decided.ok) throw new Error(`payout ${attemptId}: its withdrawal was ${decided.reason}`);
    if (write.lineId !== null)
      await trx
        .insertInto("payout_line_links")
        .values({ line_id: write.lineId, attempt_id: attemptId, role: "debit" })
        .execute();
    await writeAudit(
      trx,
      { actor: write.actor, action: "payout.paid", at: write.now },
      "transaction",
      String(transactionId),
      null,
      {
        attempt: attemptId,
        line: write.lineId,
      },
    );
    // Its batch is closed by the sweep after the commit (closeDoneBatches), once per transaction.
    paid.push({ attemptId, transactionId, callbackId: decided.callbackId });
  }
  return { paid, linked };
}

/** A paid attempt no debit line proves yet (a channel paid it) takes this line as its debit. */
async function linkDebitOfPaid(
  trx: Transaction<Database>,
  attemptId: number,
  lineId: number,
): Promise<boolean> {
  const paid = await trx
    .selectFrom("payout_attempts")
    .select("id")
    .where("id", "=", attemptId)
    .where("stage", "=", "paid")
    .executeTakeFirst();
  if (!paid) return false;
  const link = await trx
    .insertInto("payout_line_links")
    .values({ line_id: lineId, attempt_id: attemptId, role: "debit" })
    .onConflict((oc) => oc.doNothing())
    .returning("attempt_id")
    .executeTakeFirst();
  return link !== undefined;
}

/**
 * A return of a sent attempt ends it (the withdrawal goes back to the operators, pending); one of a
 * paid attempt is flagged, and the merchant's answer stays as it was. Either way its money comes
 * back to the firm in the ledger, in this transaction (payout-postings.ts, `postReturn`).
 */
export async function returnWithin(
  trx: Transaction<Database>,
  r: { attemptId: number; lineId: number | null; reason: string | null; actor: string; now: number },
): Promise<ReturnResult> {
  const ended = await trx
    .updateTable("payout_attempts")
    .set({ stage: "returned", reason: r.reason ?? "returned", ended_at: r.now, updated_at: r.now })
    .where("id", "=", r.attemptId)
    .where("stage", "=", "sent")
    .returning(["transaction_id", "batch_id"])
    .executeTakeFirst();
  const flagged = ended
    ? undefined
    : await trx
        .updateTable("payout_attempts")
        .set({ flag: "returned_after_paid", reason: r.reason ?? "returned", updated_at: r.now })
        .where("id", "=", r.attemptId)
        .where("stage", "=", "paid")
        .returning(["transaction_id", "batch_id"])
        .executeTakeFirst();
  const row = ended ?? flagged;
  if (!row) return (await linkReturnOfReturned(trx, r.attemptId, r.lineId)) ? "returned" : "moved";
  if (r.lineId !== null)
    await trx
      .insertInto("payout_line_links")
      .values({ line_id: r.lineId, attempt_id: r.attemptId, role: "return" })
      .onConflict((oc) => oc.doNothing())
      .execute();
  // Back to the firm, in the return's own transaction (a second line naming one paid posts once).
  await postReturn(trx, { attemptId: r.attemptId, reason: r.reason, actor: r.actor, now: r.now });
  const action = ended ? "payout.returned" : "payout.returned_after_paid";
  await writeAudit(
    trx,
    { actor: r.actor, action, at: r.now },
    "transaction",
    String(row.transaction_id),
    null,
    {
      attempt: r.attemptId,
      reason: r.reason,
      line: r.lineId,
    },
  );
  if (ended) await closeBatchIfDone(trx, Number(row.batch_id), r.now);
  return ended ? "returned" : "returned_after_paid";
}

/** A returned attempt (a channel said so first) takes the bank's return credit as its return line. */
async function linkReturnOfReturned(
  trx: Transaction<Database>,
  attemptId: number,
  lineId: number | null,
): Promise<boolean> {
  if (lineId === null) return false;
  const returned = await trx
    .selectFrom("payout_attempts")
    .select("id")
    .where("id", "=", attemptId)
    .where("stage", "=", "returned")
    .executeTakeFirst();
  if (!returned) return false;
  const link = await trx
    .insertInto("payout_line_links")
    .values({ line_id: lineId, attempt_id: attemptId, role: "return" })
    .onConflict((oc) => oc.doNothing())
    .returning("attempt_id")
    .executeTakeFirst();
  return link !== undefined;
}

/** Raises a flag on an attempt for the operators (a possible double payment, overdue). */
export async function flagWithin(
  trx: Kysely<Database> | Transaction<Database>,
  f: { attemptId: number; flag: string; actor: string; now: number; detail?: Record<string, unknown> },
): Promise<void> {
  const row = await trx
    .updateTable("payout_attempts")
    .set({ flag: f.flag, updated_at: f.now })
    .where("id", "=", f.attemptId)
    .returning("transaction_id")
    .executeTakeFirst();
  if (!row) return;
  await writeAudit(
    trx,
    { actor: f.actor, action: `payout.${f.flag}`, at: f.now },
    "transaction",
    String(row.transaction_id),
    null,
    {
      attempt: f.attemptId,
      ...f.detail,
    },
  );
}

/**
 * Every sent batch none of whose attempts is still sent, closed. Attempts of one batch ended in
 * parallel transactions (a channel's answers, a statement and a channel) each see the others still
 * sent and leave the batch open; run after each commits, the last one's sweep sees them all ended.
 * The payout watch runs it too, for a process that stopped between a commit and its sweep.
 */
export async function closeDoneBatches(db: Kysely<Database>, now: number): Promise<void> {
  await db
    .updateTable("payout_batches")
    .set({ stage: "closed", updated_at: now })
    .where("stage", "=", "sent")
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom("payout_attempts as a")
            .select("a.id")
            .whereRef("a.batch_id", "=", "payout_batches.id")
            .where("a.stage", "=", "sent"),
        ),
      ),
    )
    .execute();
}

/** A sent batch whose attempts have all ended is closed. */
async function closeBatchIfDone(trx: Transaction<Database>, batchId: number, now: number): Promise<void> {
  await trx
    .updateTable("payout_batches")
    .set({ stage: "closed", updated_at: now })
    .where("id", "=", batchId)
    .where("stage", "=", "sent")
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom("payout_attempts")
            .select("id")
            .where("batch_id", "=", batchId)
            .where("stage", "=", "sent"),
        ),
      ),
    )
    .execute();
}

/**
 * The attempts of these accounts sent since `since`, whatever became of them since: the sent ones a
 * line may prove, the paid, returned and superseded ones a line may name again (a double payment).
 */
export async function payoutPoolRows(
  db: Kysely<Database>,
  accountIds: readonly number[],
  since: number,
): Promise<PoolRow[]> {
  if (accountIds.length === 0) return [];
  const rows = await db
    .selectFrom("payout_attempts as a")
    .select([
      "a.id",
      "a.transaction_id",
      "a.batch_id",
      "a.payment_id",
      "a.amount",
      "a.payee_iban",
      "a.payee_name",
      "a.stage",
      "a.sent_at",
    ])
    .select((eb) =>
      eb
        .selectFrom("payout_attempts as n")
        .select(sql<number>`COUNT(*)`.as("c"))
        .whereRef("n.transaction_id", "=", "a.transaction_id")
        .whereRef("n.id", ">", "a.id")
        .as("later"),
    )
    .select((eb) => [
      eb
        .selectFrom("payout_line_links as d")
        .select(sql<number>`COUNT(*)`.as("c"))
        .whereRef("d.attempt_id", "=", "a.id")
        .where("d.role", "=", "debit")
        .as("has_debit"),
      eb
        .selectFrom("payout_line_links as r")
        .select(sql<number>`COUNT(*)`.as("c"))
        .whereRef("r.attempt_id", "=", "a.id")
        .where("r.role", "=", "return")
        .as("has_return"),
    ])
    .where("a.account_id", "in", accountIds)
    .where("a.sent_at", ">=", since)
    .orderBy("a.id")
    .execute();
  return rows.map((r) => ({
    ...r,
    later: Number(r.later ?? 0),
    has_debit: Number(r.has_debit ?? 0) > 0 ? 1 : 0,
    has_return: Number(r.has_return ?? 0) > 0 ? 1 : 0,
  })) as PoolRow[];
}

export interface PayoutOutcomeRepository {
  pool(accountIds: readonly number[], since: number): Promise<PoolRow[]>;
  /** A channel's final "paid": the attempts paid with their approvals, in one database transaction. */
  pay(write: PayWrite): Promise<PaidAttempt[]>;
  /** A channel's refusal of a sent attempt: failed, back to the operators with the reason. */
  fail(attemptId: number, reason: string, actor: string, now: number): Promise<boolean>;
  returned(r: {
    attemptId: number;
    reason: string | null;
    actor: string;
    now: number;
  }): Promise<ReturnResult>;
  flag(f: {
    attemptId: number;
    flag: string;
    actor: string;
    now: number;
    detail?: Record<string, unknown>;
  }): Promise<void>;
  /** Closes the sent batches whose attempts have all ended (closeDoneBatches). */
  closeDone(now: number): Promise<void>;
}

export function createPayoutOutcomeRepository(db: Kysely<Database>): PayoutOutcomeRepository {
  return {
    pool: (accountIds, since) => payoutPoolRows(db, accountIds, since),
    async pay(write) {
      const paid = await db.transaction().execute((trx) => payWithin(trx, write));
      if (paid.length > 0) await closeDoneBatches(db, write.now);
      return paid;
    },
    fail: (attemptId, reason, actor, now) =>
      db
        .transaction()
        .execute(async (trx) => {
          const row = await trx
            .updateTable("payout_attempts")
            .set({ stage: "failed", reason, ended_at: now, updated_at: now })
            .where("id", "=", attemptId)
            .where("stage", "=", "sent")
            .returning(["transaction_id", "batch_id"])
            .executeTakeFirst();
          if (!row) return false;
          await postReturn(trx, { attemptId, reason, actor, now });
          await writeAudit(
            trx,
            { actor, action: "payout.failed", at: now },
            "transaction",
            String(row.transaction_id),
            null,
            {
              attempt: attemptId,
              reason,
            },
          );
          await closeBatchIfDone(trx, Number(row.batch_id), now);
          return true;
        })
        .then(async (failed) => {
          if (failed) await closeDoneBatches(db, now);
          return failed;
        }),
    async returned(r) {
      const result = await db.transaction().execute((trx) => returnWithin(trx, { ...r, lineId: null }));
      if (result === "returned") await closeDoneBatches(db, r.now);
      return result;
    },
    closeDone: (now) => closeDoneBatches(db, now),
    flag: (f) => flagWithin(db, f),
  };
}
