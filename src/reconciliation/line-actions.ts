/**
 * What an operator does with a line the matching left to them (docs/reconciliation.md): approve a
 * deposit with it, for the amount the bank shows, or mark it not ours (to be refunded). The line and
 * the decision are written together (store/statements/statement-line-actions.ts); the decision is the normal
 * one, with its audit entry and its callback.
 */

import { callbackDraft } from "../callbacks/message.js";
import { planDecision, planRefusal } from "../decisions/plan.js";
import type { Approver } from "../domain/actors.js";
import { formatMinor } from "../domain/money.js";
import type { Outcome, Refusal } from "../domain/refusal.js";
import { notFound, refusal } from "../domain/refusal.js";
import { isoTime } from "../domain/transaction-view.js";
import { turkeyDayOf } from "../domain/turkey-time.js";
import { approvalPosting } from "../ledger/approval-posting.js";
import { refundDue } from "../ledger/postings.js";
import type { StatementLineRow } from "../store/statements/statement-lines.js";
import { CLOCK_TOLERANCE_MS } from "./candidate-pool.js";
import { fromSuspense } from "./held-lines.js";
import type { ReconcileDeps } from "./line-matcher.js";

export interface LineActor {
  /** Who acts, as the audit log names them. */
  actor: string;
  /** Who approves, for the amount's rule (domain/actors.ts). */
  approver: Approver;
  /**
   * An admin (or the admin API): may approve with a line booked before the deposit was made; an
   * operator asks one.
   */
  admin: boolean;
}

const DAY_MS = 86_400_000;

/**
 * The latest a deposit may have been made for the line to be its money: its booking time (a line
 * with a date only: the end of that day) and the clocks' tolerance, as the matching reaches
 * (candidate-pool.ts). Money booked before a deposit existed was sent for something else.
 */
function latestPaidBy(line: StatementLineRow): number {
  return Number(line.booked_at) + (line.date_only === 1 ? DAY_MS : 0) + CLOCK_TOLERANCE_MS;
}

function lineClosed(line: StatementLineRow): Refusal {
  if (line.direction === "debit") return refusal("line_is_debit", "a debit approves nothing");
  if (line.state === "not_ours") return refusal("line_not_ours", "this line is marked not ours");
  if (line.state === "after_cancellation")
    return refusal(
      "line_after_cancellation",
      "this line paid a deposit that was already cancelled: refund it or ask the merchant; it approves nothing",
    );
  return refusal(
    "line_closed",
    `this line is ${line.state} already (transaction ${line.transaction_id ?? "none"})`,
  );
}

function bookedBefore(line: StatementLineRow, madeAt: number): Refusal {
  const booked = Number(line.booked_at);
  const when = line.date_only === 1 ? `on ${turkeyDayOf(booked)}` : `at ${isoTime(booked)}`;
  return refusal(
    "line_booked_before_deposit",
    `this line was booked ${when}, before the deposit was made (${isoTime(madeAt)}): approving with it needs an admin`,
  );
}

export async function approveWithLine(
  deps: ReconcileDeps,
  lineId: number,
  transactionId: number,
  who: LineActor,
): Promise<Outcome<{ line_id: number; transaction_id: number; amount: string }>> {
  const { repos } = deps;
  const line = await repos.statements.get(lineId);
  if (!line) return refusal("statement_line_not_found", "statement line not found");
  if (line.direction !== "credit" || (line.state !== "suggested" && line.state !== "unmatched"))
    return lineClosed(line);
  // Deposits are in lira: a line in another currency is money to look into, never a lira amount.
  if (line.currency !== "TRY")
    return refusal("line_currency", `a line in ${line.currency} approves no deposit: deposits are in TRY`);
  const tx = await repos.transactions.get(transactionId);
  const accounts = await repos.statements.accountsWithIbanOf(Number(line.account_id));
  // Another firm's, another account's or a payout: as unknown here as it is to the line.
  if (tx?.type !== "deposit" || !accounts?.ids.includes(Number(tx.account_id)))
    return refusal("no_deposit_on_line_account", "a deposit shown this line's account not found");
  const firm = await repos.firms.get(tx.firm_id);
  if (!firm) return notFound("firm");
  if (firm.sandbox === 1)
    return refusal("test_firm_line", "a test firm's deposits are never approved by a bank's line");
  const planned = planDecision(tx, {
    kind: "approve",
    amountMinor: Number(line.amount),
    by: who.approver,
  });
  if (!planned.ok) return planRefusal(planned.refusal, tx.status);
  if (!who.admin && latestPaidBy(line) < Number(tx.created_at))
    return bookedBefore(line, Number(tx.created_at));
  const { plan } = planned;
  const settled = await repos.statements.settle(lineId, {
    transactionId,
    status: "approved",
    amount: plan.amount,
    originalAmount: plan.originalAmount,
    decidedBy: who.actor,
    note: `bank statement line ${lineId}`,
    now: deps.now(),
    callback: (decided) => callbackDraft(decided, { callbackMiddleName: firm.callback_middle_name === 1 }),
    // A held line's money is in suspense already: the approval takes it from there.
    posting: line.held_posting_id === null ? approvalPosting : (d, f) => fromSuspense(approvalPosting(d, f)),
  });
  if (!settled.ok) {
    if (settled.reason === "settled_elsewhere")
      return refusal("line_settles_another", "another statement line settles this deposit");
    if (settled.reason === "line_moved")
      return refusal("line_moved", "this line was settled or marked meanwhile");
    if (settled.reason === "not_found") return notFound("transaction");
    return refusal("decided_meanwhile", "transaction is not pending; it was decided meanwhile");
  }
  deps.decisionsMade();
  // In the form of every other answer's amount ("150.00"), as the deposit it approved now has it.
  return {
    ok: true,
    value: { line_id: lineId, transaction_id: transactionId, amount: formatMinor(plan.amount) },
  };
}

export async function markNotOurs(
  deps: ReconcileDeps,
  lineId: number,
  actor: string,
  note: string | null,
): Promise<Outcome<{ line_id: number; state: "not_ours" }>> {
  const line = await deps.repos.statements.get(lineId);
  if (!line) return refusal("statement_line_not_found", "statement line not found");
  if (line.direction === "debit")
    return refusal("line_is_debit", "a debit is the account's own: nothing to refund");
  const at = deps.now();
  const moved = await deps.repos.statements.markNotOurs(lineId, { actor, at, note }, (held) =>
    refundDue({ ...held, at, actor }),
  );
  if (!moved) return lineClosed((await deps.repos.statements.get(lineId)) ?? line);
  return { ok: true, value: { line_id: lineId, state: "not_ours" } };
}
