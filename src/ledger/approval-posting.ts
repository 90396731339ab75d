/**
 * The posting of an approval, whichever way it came (an operator, a statement line, a payout, the
 * admin API): decideWithin (store/decisions/decisions.ts) writes it in the decision's own database
 * transaction, so an approval and its posting commit together or not at all. A test firm's money is
 * not real: nothing posts. A rejection moves no money.
 *
 * A withdrawal a payout paid whose sending posted (`payout-sent:<attemptId>`) left the firm's
 * balance then: its approval moves the money out of transit to the paying account's cash, with the
 * commission (`payout-paid:<attemptId>`), so the firm is never debited twice. One approved by hand,
 * or paid by a payout sent before sending posted, is debited to the firm now
 * (`withdrawal-paid:<txId>`).
 */
import { cashAccount, type PostingDraft, parseAccountKey } from "../domain/ledger.js";
import type { ApprovalPostingFacts } from "../store/ledger/approval-facts.js";
import type { TransactionRow } from "../store/transactions/transactions.js";
import { commissionFor } from "./commission.js";
import { depositApproved, payoutPaid, payoutPaidUnplaced, withdrawalPaidByHand } from "./postings.js";

export function approvalPosting(decided: TransactionRow, facts: ApprovalPostingFacts): PostingDraft | null {
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
  const iban = cashIban(facts.iban);
  if (decided.type === "deposit")
    return depositApproved({ ...event, source: iban === null ? { unplaced: true } : { iban } });
  if (facts.payout?.sentPosted) {
    const paid = { ...event, attemptId: facts.payout.attemptId };
    return iban === null ? payoutPaidUnplaced(paid) : payoutPaid({ ...paid, iban });
  }
  // Paid by a payout: out of the paying account; by hand: into transit (facts name no account).
  return withdrawalPaidByHand({ ...event, iban });
}

/**
 * The IBAN as the ledger names a bank account's cash (no spaces, upper case), or null where the
 * account holds none it can name (an account written before IBANs were checked): the money then
 * waits in suspense, since no ledger rule may refuse a decision the contract allows.
 */
function cashIban(iban: string | null): string | null {
  if (iban === null) return null;
  const bankForm = iban.replace(/[\s-]+/g, "").toUpperCase();
  return parseAccountKey(cashAccount(bankForm)) === undefined ? null : bankForm;
}
