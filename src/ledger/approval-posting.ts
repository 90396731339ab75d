/**
 * The posting of an approval, whichever way it came (an operator, a statement line, a payout, the
 * admin API): decideWithin (store/decisions/decisions.ts) writes it in the decision's own database
 * transaction, so an approval and its posting commit together or not at all. A test firm's money is
 * not real: nothing posts. A rejection moves no money.
 */
import type { ApprovalFacts, PostingDraft } from "../domain/ledger.js";
import type { TransactionRow } from "../store/transactions/transactions.js";
import { commissionFor } from "./commission.js";
import { depositApproved, withdrawalPaidByHand } from "./postings.js";

export function approvalPosting(decided: TransactionRow, facts: ApprovalFacts): PostingDraft | null {
  if (facts.sandbox || decided.status !== "approved") return null;
  const amount = Number(decided.amount);
  const event = {
    at: Number(decided.decided_at ?? decided.updated_at),
    actor: decided.decided_by ?? "system",
    transactionId: Number(decided.id),
    firmId: Number(decided.firm_id),
    amount,
    commission: commissionFor(facts.schedule, amount),
  };
  if (decided.type === "deposit")
    return depositApproved({
      ...event,
      source: facts.iban === null ? { unplaced: true } : { iban: facts.iban },
    });
  return withdrawalPaidByHand({ ...event, iban: null });
}
