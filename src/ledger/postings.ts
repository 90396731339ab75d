/**
 * What posts when (docs/ledger.md, "What posts"): each function turns one event into its posting,
 * with entries summing to zero and the idempotency key taken from the event, so that the event
 * retried posts once. Debits are positive, credits negative. No rule refuses a decision: a firm's
 * balance may go negative, and a commission larger than the amount is capped and flagged
 * (commission.ts). Pure: the wiring reads what the rules need (the firm's schedule, the account's
 * IBAN) and writes the posting in the event's own database transaction.
 */
import {
  ACCOUNT_KINDS,
  type AccountKey,
  cashAccount,
  type EntryKind,
  firmAccount,
  inTransitAccount,
  type PostingDraft,
  type PostingLine,
  parseAccountKey,
} from "../domain/ledger.js";
import { draft, type PostingEvent as Event, move } from "../domain/payout-postings.js";
import type { Commission } from "./commission.js";

/** A payout sent, and one come back: the store posts them itself with the stage (domain/payout-postings.ts). */
export { payoutReturned, payoutSent } from "../domain/payout-postings.js";

/** The firm pays its commission to the company; nothing when it is zero. */
const commissionLines = (firmId: number, c: Commission): PostingLine[] =>
  c.commission > 0 ? move(firmAccount(firmId), "commission", c.commission, "commission") : [];

const cappedFlag = (c: Commission) => (c.capped ? "commission_capped" : null);

/**
 * A deposit approved at its final amount (edits included): the money, at the bank account or held
 * in suspense since its line came in, becomes the firm's, less its commission. Keyed by the
 * deposit, so it posts once whichever way it was approved; money taken from suspense was posted
 * to cash when its line was held, and never again.
 */
export function depositApproved(
  e: Event & {
    transactionId: number;
    firmId: number;
    amount: number;
    commission: Commission;
    /**
     * Where the money is: the payment account's IBAN, the statement line that held it for nobody,
     * or (a deposit approved without a payment account) nowhere known yet: suspense.
     */
    source: { iban: string } | { heldLineId: number } | { unplaced: true };
  },
): PostingDraft {
  const money = "iban" in e.source ? cashAccount(e.source.iban) : "suspense";
  const moneyKind: EntryKind = "iban" in e.source ? "deposit" : "held";
  return draft(
    `deposit-approved:${e.transactionId}`,
    "deposit_approved",
    e,
    [
      ...move(money, firmAccount(e.firmId), e.amount, moneyKind, "deposit"),
      ...commissionLines(e.firmId, e.commission),
    ],
    { flag: cappedFlag(e.commission) },
  );
}

/** A payout the bank shows paid: out of the bank account, and the firm's withdrawal commission. */
export function payoutPaid(
  e: Event & { attemptId: number; firmId: number; iban: string; amount: number; commission: Commission },
): PostingDraft {
  return draft(
    `payout-paid:${e.attemptId}`,
    "withdrawal_paid",
    e,
    [
      ...move(inTransitAccount(e.firmId), cashAccount(e.iban), e.amount, "transit", "withdrawal"),
      ...commissionLines(e.firmId, e.commission),
    ],
    { flag: cappedFlag(e.commission) },
  );
}

/**
 * A payout the bank shows paid from an account whose IBAN the ledger cannot name (one written
 * before IBANs were checked): the money stays in transit, where the bank check finds it, and the
 * commission is taken. Null when there is no commission: nothing moves.
 */
export function payoutPaidUnplaced(
  e: Event & { attemptId: number; firmId: number; commission: Commission },
): PostingDraft | null {
  const lines = commissionLines(e.firmId, e.commission);
  if (lines.length === 0) return null;
  return draft(`payout-paid:${e.attemptId}`, "withdrawal_paid", e, lines, { flag: cappedFlag(e.commission) });
}

/**
 * A withdrawal paid by hand (approved by an operator, no payout batch): out of the firm, and out of
 * the bank account it was paid from; where that is not known (an operator's approval names none),
 * into the firm's transit, where the bank's debit finds it.
 */
export function withdrawalPaidByHand(
  e: Event & {
    transactionId: number;
    firmId: number;
    iban: string | null;
    amount: number;
    commission: Commission;
  },
): PostingDraft {
  const from = e.iban === null ? inTransitAccount(e.firmId) : cashAccount(e.iban);
  return draft(
    `withdrawal-paid:${e.transactionId}`,
    "withdrawal_paid",
    e,
    [
      ...move(
        firmAccount(e.firmId),
        from,
        e.amount,
        "withdrawal",
        e.iban === null ? "transit" : "withdrawal",
      ),
      ...commissionLines(e.firmId, e.commission),
    ],
    { flag: cappedFlag(e.commission) },
  );
}

/** A statement credit that pays nobody yet (unmatched, after cancellation, not ours): held in suspense. */
export function lineHeld(e: Event & { lineId: number; iban: string; amount: number }): PostingDraft {
  return draft(
    `line-held:${e.lineId}`,
    "line_held",
    e,
    move(cashAccount(e.iban), "suspense", e.amount, "held"),
  );
}

/** Money held for nobody that is owed back to its payer. */
export function refundDue(e: Event & { lineId: number; amount: number }): PostingDraft {
  return draft(
    `refund-due:${e.lineId}`,
    "refund_due",
    e,
    move("suspense", "refunds_due", e.amount, "refund"),
  );
}

/** A refund owed to a payer, paid by a debit of the bank account `iban`: out of refunds due and the cash. */
export function refundPaid(e: Event & { lineId: number; iban: string; amount: number }): PostingDraft {
  return draft(
    `refund-paid:${e.lineId}`,
    "refund_paid",
    e,
    move("refunds_due", cashAccount(e.iban), e.amount, "refund"),
  );
}

/** A charge the bank took (a debit on the statement): to bank fees, never to a firm. */
export function bankFee(e: Event & { lineId: number; iban: string; amount: number }): PostingDraft {
  return draft(
    `bank-fee:${e.lineId}`,
    "bank_fee",
    e,
    move("bank_fees", cashAccount(e.iban), e.amount, "bank_fee"),
  );
}

/** Money the company sent a firm, recorded by an operator: out of the firm's balance and the bank account. */
export function settlement(
  e: Event & { settlementId: number | string; firmId: number; iban: string; amount: number },
): PostingDraft {
  return draft(
    `settlement:${e.settlementId}`,
    "settlement",
    e,
    move(firmAccount(e.firmId), cashAccount(e.iban), e.amount, "settlement"),
  );
}

export type AdjustmentDraft =
  | { ok: true; posting: PostingDraft }
  | { ok: false; problem: "reason_required" | "zero_amount" };

/**
 * A manual adjustment of a firm's balance against the company's own funds, with its reason:
 * a positive amount credits the firm, a negative one debits it. Who may make one is the wiring's
 * rule (admins only, audited).
 */
export function adjustment(
  e: Event & { adjustmentId: number | string; firmId: number; amount: number; reason: string },
): AdjustmentDraft {
  if (e.reason.trim() === "") return { ok: false, problem: "reason_required" };
  if (e.amount === 0) return { ok: false, problem: "zero_amount" };
  const lines =
    e.amount > 0
      ? move("equity", firmAccount(e.firmId), e.amount, "adjustment")
      : move(firmAccount(e.firmId), "equity", -e.amount, "adjustment");
  return {
    ok: true,
    posting: draft(`adjustment:${e.adjustmentId}`, "adjustment", e, lines, { memo: e.reason.trim() }),
  };
}

/**
 * An account's balance as the ledger starts (or as an admin confirms it as of a date), against
 * `opening`: `balance` on the account's normal side. Keyed by the account, so it is set once; a
 * later change is a correction. Null for a zero balance (nothing to post).
 */
export function openingBalance(
  e: Event & { account: AccountKey; balance: number; memo: string },
): PostingDraft | null {
  const parsed = parseAccountKey(e.account);
  if (parsed === undefined) throw new RangeError(`no such ledger account: ${e.account}`);
  if (e.balance === 0) return null;
  const debit = ACCOUNT_KINDS[parsed.kind] === "debit" ? e.balance : -e.balance;
  const lines =
    debit > 0 ? move(e.account, "opening", debit, "opening") : move("opening", e.account, -debit, "opening");
  return draft(`opening:${e.account}`, "opening_balance", e, lines, { memo: e.memo });
}
