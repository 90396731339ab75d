/**
 * Statement lines against payouts (docs/payouts.md): the account's sent payouts read once per run
 * of lines and again after each written batch, each debit judged by the pure rule
 * (payout-matching.ts) and each credit asked whether it is a payout's return before the deposits
 * are asked. What a line proves becomes its effect, written with the line by the store: a paid
 * payout's withdrawal approved with its callback, a return sent back to the operators, a line that
 * names a payout paid already raised as a possible double payment.
 */
import { callbackDraft } from "../callbacks/message.js";
import { approvalPosting } from "../ledger/approval-posting.js";
import type { PoolRow } from "../store/payouts/payout-outcomes.js";
import type { StatementLinePayoutOutcome, StatementLineState } from "../store/schema.js";
import type { PayoutEffect } from "../store/statements/statement-lines.js";
import type { TransactionRow } from "../store/transactions/transactions.js";
import type { HeldApprovals } from "./matching.js";
import { type DebitOutcome, matchDebit, matchReturn, type ReturnOutcome } from "./payout-matching.js";
import type { PayoutPool, SentBatch, SentPayout } from "./payout-pool.js";
import type { StatementLine } from "./statement.js";

/** How far before a run's first line a payout may have been sent and still be named by it. */
export const PAYOUT_LOOKBACK_MS = 30 * 86_400_000;

export const PAYOUT_ACTOR = "service:reconcile";

function stageOf(row: PoolRow): SentPayout["stage"] {
  if (row.stage === "sent") return "sent";
  // Paid on a channel's final word, its debit not yet seen: the debit to come is its proof, not a
  // second payment, so the rule meets it as sent (the store then ties the line, pays nothing).
  if (row.stage === "paid") return row.has_debit ? "paid" : "sent";
  // Money that left and came back: a debit naming it is that payout's own, after its return.
  if (row.stage === "returned") return "returned";
  // A failed attempt's money never left (a channel refused it): a debit naming it is suspect.
  return "superseded";
}

/** The pool the rule reads: each attempt, and each sent batch's attempts. */
/** The attempts returned (by a channel's word) whose return credit no line has shown yet. */
export type AwaitingReturnLine = ReadonlySet<number>;

export function awaitingReturnLine(rows: readonly PoolRow[]): AwaitingReturnLine {
  return new Set(rows.filter((r) => r.stage === "returned" && !r.has_return).map((r) => Number(r.id)));
}

export function poolOf(rows: readonly PoolRow[]): PayoutPool {
  const payouts = rows.map(
    (r): SentPayout => ({
      attemptId: Number(r.id),
      transactionId: Number(r.transaction_id),
      batchId: Number(r.batch_id),
      paymentId: r.payment_id,
      amountMinor: Number(r.amount),
      payeeIban: r.payee_iban,
      payeeName: r.payee_name,
      stage: stageOf(r),
      sentAt: Number(r.sent_at ?? 0),
    }),
  );
  const byBatch = new Map<number, SentPayout[]>();
  for (const p of payouts)
    if (p.stage === "sent") byBatch.set(p.batchId, [...(byBatch.get(p.batchId) ?? []), p]);
  const batches: SentBatch[] = [...byBatch].map(([batchId, list]) => ({
    batchId,
    totalMinor: list.reduce((sum, p) => sum + p.amountMinor, 0),
    attemptIds: list.map((p) => p.attemptId),
    sentAt: Math.min(...list.map((p) => p.sentAt)),
  }));
  return { payouts, batches };
}

/** What a line becomes for payouts: its state, its payout outcome, evidence and effect. */
export interface PayoutLinePlan {
  state: StatementLineState;
  payoutOutcome: StatementLinePayoutOutcome;
  evidence: string;
  effect?: PayoutEffect;
}

export interface PayoutLineContext {
  now: number;
  /** Why no line of this run may pay or return a payout (a statement that does not balance). */
  held: HeldApprovals | null;
  /** Whose callbacks carry the middle name, by firm (as deposits' do). */
  middleNames: ReadonlyMap<number, boolean>;
  /** Attempts a channel said came back whose bank credit has not shown yet. */
  awaitingReturnLine: AwaitingReturnLine;
}

/** A debit's plan; a credit's when it is a payout's return; null for a credit of the deposits. */
export function payoutLinePlan(
  line: StatementLine,
  pool: PayoutPool,
  ctx: PayoutLineContext,
): PayoutLinePlan | null {
  if (line.direction === "debit") return debitPlan(matchDebit(line, pool), pool, ctx);
  // A reversal is money the bank gives back: a payout's return when it fits one.
  const returned = matchReturn(line, pool);
  return returned ? returnPlan(returned, pool, ctx) : null;
}

function debitPlan(outcome: DebitOutcome, pool: PayoutPool, ctx: PayoutLineContext): PayoutLinePlan {
  const evidence = JSON.stringify(
    ctx.held && outcome.kind === "paid" ? { ...outcome, held: ctx.held } : outcome,
  );
  const plan = (payoutOutcome: StatementLinePayoutOutcome, effect?: PayoutEffect): PayoutLinePlan => ({
    state: "debit",
    payoutOutcome,
    evidence,
    ...(effect ? { effect } : {}),
  });
  switch (outcome.kind) {
    case "paid": {
      if (ctx.held) return plan("suggested");
      markStage(pool, outcome.attemptIds, "paid");
      return plan("paid", { kind: "pay", write: payWrite(outcome.attemptIds, pool, ctx) });
    }
    case "suggested":
      return plan("suggested");
    case "double_payment":
      return plan("double_payment", {
        kind: "flag",
        attemptId: outcome.attemptId,
        flag: "double_payment",
        actor: PAYOUT_ACTOR,
        now: ctx.now,
      });
    case "after_return":
      return plan("after_return");
    case "fee":
      return plan("fee");
    case "unmatched":
      return plan("unmatched");
  }
}

function returnPlan(outcome: ReturnOutcome, pool: PayoutPool, ctx: PayoutLineContext): PayoutLinePlan {
  const evidence = JSON.stringify(ctx.held ? { ...outcome, held: ctx.held } : outcome);
  const [only] = outcome.kind === "return_unknown" ? outcome.attemptIds : [];
  if (
    outcome.kind === "return_unknown" &&
    outcome.why === "already_returned" &&
    outcome.attemptIds.length === 1 &&
    only !== undefined &&
    ctx.awaitingReturnLine.has(only) &&
    !ctx.held
  )
    // A channel said it came back first; this is the bank's credit of that return.
    return {
      state: "not_ours",
      payoutOutcome: "return",
      evidence,
      effect: { kind: "return", attemptId: only, reason: null, actor: PAYOUT_ACTOR, now: ctx.now },
    };
  if (outcome.kind === "return_unknown" || ctx.held)
    return { state: "unmatched", payoutOutcome: "return_unknown", evidence };
  markStage(pool, [outcome.attemptId], outcome.afterPaid ? "paid" : "returned");
  return {
    state: "not_ours",
    payoutOutcome: "return",
    evidence,
    effect: {
      kind: "return",
      attemptId: outcome.attemptId,
      reason: outcome.reason,
      actor: PAYOUT_ACTOR,
      now: ctx.now,
    },
  };
}

/**
 * The pool as the batch being written will leave it, for the lines after this one: a payout paid
 * or returned here is no longer sent. The pool's indexes hold these same objects.
 */
function markStage(pool: PayoutPool, attemptIds: readonly number[], stage: SentPayout["stage"]): void {
  const byAttempt = lookupOf(pool).byAttempt;
  for (const id of attemptIds) {
    const p = byAttempt.get(id);
    if (p) (p as { stage: SentPayout["stage"] }).stage = stage;
  }
}

/** A pool's payouts by attempt and withdrawal, built once per pool: each line looks up, never walks. */
const lookups = new WeakMap<
  PayoutPool,
  { byAttempt: Map<number, SentPayout>; amountOf: Map<number, number> }
>();

function lookupOf(pool: PayoutPool) {
  let lookup = lookups.get(pool);
  if (!lookup) {
    lookup = {
      byAttempt: new Map(pool.payouts.map((p) => [p.attemptId, p])),
      amountOf: new Map(pool.payouts.map((p) => [p.transactionId, p.amountMinor])),
    };
    lookups.set(pool, lookup);
  }
  return lookup;
}

function payWrite(attemptIds: readonly number[], pool: PayoutPool, ctx: PayoutLineContext) {
  const amounts = lookupOf(pool).amountOf;
  return {
    attemptIds,
    actor: PAYOUT_ACTOR,
    now: ctx.now,
    decision: (transactionId: number) => ({
      transactionId,
      status: "approved" as const,
      amount: amounts.get(transactionId) ?? 0,
      originalAmount: null,
      decidedBy: PAYOUT_ACTOR,
      note: "paid: the bank's statement shows the payout",
      now: ctx.now,
      callback: (decided: TransactionRow) =>
        callbackDraft(decided, { callbackMiddleName: ctx.middleNames.get(decided.firm_id) ?? false }),
      posting: approvalPosting,
    }),
  };
}
