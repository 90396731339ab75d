/**
 * Ending a pending transaction: what an operator (or the service, on auto-cancel) may decide; the
 * callback that tells the merchant is callbacks/message.ts's. Pure: the store writes the decision
 * and the callback row in one database transaction (store/decisions/decisions.ts), which is also where "only pending can move" is
 * enforced for good, against two operators clicking at the same moment.
 */
import { type Approver, mayApproveMoreThanAsked } from "../domain/actors.js";
import { type Refusal, refusal } from "../domain/refusal.js";
import type { Transaction, TransactionStatus } from "../domain/transaction.js";

export type Decision =
  | {
      kind: "approve";
      amountMinor?: number;
      note?: string;
      /**
       * Who approves, for the amount's rule (domain/actors.ts, mayApproveMoreThanAsked): crediting a
       * payer more is money the merchant did not expect, so an operator alone may approve the sum
       * asked for or less (a short payment), and asks an admin for more. Unsaid: an operator.
       */
      by?: Approver;
    }
  | { kind: "reject"; note?: string };

export type DecisionRefusal = "not_pending" | "amount_on_withdrawal" | "above_asked";

export type DecidableTransaction = Pick<Transaction, "type" | "status" | "amount">;

export interface DecisionPlan {
  status: "approved" | "rejected";
  amount: number;
  /** The amount asked for, when a deposit is approved with the sum the payer actually sent. */
  originalAmount: number | null;
  note: string | null;
}

export function planDecision(
  tx: DecidableTransaction,
  decision: Decision,
): { ok: true; plan: DecisionPlan } | { ok: false; refusal: DecisionRefusal } {
  if (tx.status !== "pending") return { ok: false, refusal: "not_pending" };
  const note = decision.note?.trim() ? decision.note.trim() : null;
  if (decision.kind === "reject") {
    return { ok: true, plan: { status: "rejected", amount: tx.amount, originalAmount: null, note } };
  }
  const amount = decision.amountMinor ?? tx.amount;
  if (amount !== tx.amount && tx.type !== "deposit") return { ok: false, refusal: "amount_on_withdrawal" };
  const by = decision.by ?? { kind: "operator", role: "operator" };
  if (amount > tx.amount && !mayApproveMoreThanAsked(by)) return { ok: false, refusal: "above_asked" };
  return {
    ok: true,
    plan: { status: "approved", amount, originalAmount: amount === tx.amount ? null : tx.amount, note },
  };
}

/** What an operator is told of a transaction decided already: its code names how it was decided. */
export function decidedAlready(status: TransactionStatus): Refusal {
  return refusal(
    status === "rejected" ? "already_rejected" : "already_approved",
    `transaction is not pending (status: ${status}); it was decided already`,
  );
}

/** Each refusal of planDecision as operators are told it. */
export function planRefusal(refused: DecisionRefusal, status: TransactionStatus): Refusal {
  if (refused === "not_pending") return decidedAlready(status);
  return refused === "above_asked"
    ? refusal("above_asked_needs_admin", "approving more than the amount asked for needs an admin")
    : refusal("amount_on_withdrawal", "only a deposit can be approved with another amount");
}
