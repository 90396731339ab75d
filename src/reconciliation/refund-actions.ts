/**
 * An operator says which debit on a bank statement paid back a credit marked not ours
 * (docs/ledger.md, "A refund paid"): the debit then belongs to the ledger's refund posting, and the
 * bank check counts it as the ledger's own, no longer a line no posting holds.
 */
import { cashIbanOf } from "../domain/ledger.js";
import { formatMinor } from "../domain/money.js";
import { type Outcome, type Refusal, refusal } from "../domain/refusal.js";
import { refundPaid } from "../ledger/postings.js";
import type { RefundOutcome } from "../store/statements/refund-lines.js";
import type { ReconcileDeps } from "./line-matcher.js";

export interface RefundPaidView {
  line_id: number;
  refund_of: number;
  amount: string;
  posting_id: number;
}

const REFUSALS: Record<Extract<RefundOutcome, { ok: false }>["reason"], Refusal> = {
  debit_not_found: refusal("statement_line_not_found", "statement line not found"),
  not_a_debit: refusal("refund_needs_debit", "the line that pays a refund is a debit"),
  debit_taken: refusal(
    "line_closed",
    "this debit paid a payout, is a bank fee or paid another refund already",
  ),
  credit_not_found: refusal("statement_line_not_found", "the line to refund: statement line not found"),
  not_due: refusal(
    "refund_not_due",
    "the line to refund is owed back to nobody: a credit marked not ours whose money the ledger holds",
  ),
  amount_differs: refusal("refund_amount_differs", "the debit's amount is not the refund's"),
  currency: refusal("line_currency", "a line not in TRY pays no refund: the ledger is in TRY"),
  refunded_already: refusal("refund_not_due", "the line to refund was refunded already"),
  no_cash_account: refusal("invalid_input", "the debit's account has no IBAN the ledger can name"),
};

export async function markRefundPaid(
  deps: ReconcileDeps,
  debitId: number,
  creditId: number,
  actor: string,
  note: string | null,
): Promise<Outcome<RefundPaidView>> {
  const at = deps.now();
  const paid = await deps.repos.statements.payRefund({ debitId, creditId }, { actor, at, note }, (r) => {
    const iban = cashIbanOf(r.iban);
    return iban === null ? null : refundPaid({ lineId: r.lineId, iban, amount: r.amount, at, actor });
  });
  if (!paid.ok) return REFUSALS[paid.reason];
  return {
    ok: true,
    value: {
      line_id: debitId,
      refund_of: creditId,
      amount: formatMinor(paid.amount),
      posting_id: paid.postingId,
    },
  };
}
