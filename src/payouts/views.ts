/** Payouts as operators see them, in the console and the CLI: amounts as text, times as ISO. */
import { formatMinor } from "../domain/money.js";
import type { PayoutAttemptRow, PayoutBatchRow, WaitingRow } from "../store/payouts/payout-batches.js";
import { toWaiting } from "./batching.js";
import {
  NOT_BATCHABLE_WORDS,
  type NotBatchable,
  payeeName,
  payoutMethod,
  type SecondRuleView,
  secondRuleOf,
  secondRuleView,
  secondRuleWords,
  type WaitingWithdrawal,
  whyNotBatchable,
} from "./rules.js";

export type { NotBatchable, SecondRuleView } from "./rules.js";

const iso = (at: number | null) => (at === null ? null : new Date(Number(at)).toISOString());

export interface PayoutAttemptView {
  attempt: number;
  /** The batch it was sent in. */
  batch: number;
  transaction_id: number;
  payment_id: string;
  amount: string;
  payee_name: string;
  payee_iban: string;
  method: "FAST" | "EFT";
  stage: PayoutAttemptRow["stage"];
  reason: string | null;
  /** A code for operators: overdue, channel_unknown, channel_mismatch, double_payment, returned_after_paid. */
  flag: string | null;
  sent_at: string | null;
  ended_at: string | null;
}

export function attemptView(a: PayoutAttemptRow): PayoutAttemptView {
  return {
    attempt: a.id,
    batch: Number(a.batch_id),
    transaction_id: a.transaction_id,
    payment_id: a.payment_id,
    amount: formatMinor(Number(a.amount)),
    payee_name: a.payee_name,
    payee_iban: a.payee_iban,
    method: a.method,
    stage: a.stage,
    reason: a.reason,
    flag: a.flag,
    sent_at: iso(a.sent_at),
    ended_at: iso(a.ended_at),
  };
}

export interface PayoutBatchView {
  batch: number;
  stage: PayoutBatchRow["stage"];
  account_id: number;
  firm_id: number | null;
  payouts: number;
  total: string;
  /** Why a second operator must approve, in words (the CLI's); null when one operator is enough. */
  second_reason: string | null;
  /** The same, as a code with the amount judged and the limit; null also for a batch of before. */
  second_rule: SecondRuleView | null;
  /** The paying account's http payout channel: the batch is released to it, not uploaded as a file. */
  channel: { code: string } | null;
  created_by: string;
  created_at: string;
  approved_by: string | null;
  approved_at: string | null;
  sent_by: string | null;
  sent_at: string | null;
  items?: PayoutAttemptView[];
}

/**
 * A batch as operators see it. `channel` is its paying account's http payout channel's code (the
 * store's `payoutChannelsOf`), null when the batch goes as a file.
 */
export function batchView(
  b: PayoutBatchRow,
  channel: string | null,
  attempts?: readonly PayoutAttemptRow[],
): PayoutBatchView {
  const rule = secondRuleOf(b.second_reason);
  return {
    batch: b.id,
    stage: b.stage,
    account_id: b.account_id,
    firm_id: b.firm_id,
    payouts: b.payouts,
    total: formatMinor(Number(b.total)),
    second_reason: rule ? secondRuleWords(rule) : b.second_reason,
    second_rule: rule ? secondRuleView(rule) : null,
    channel: channel === null ? null : { code: channel },
    created_by: b.created_by,
    created_at: iso(b.created_at) ?? "",
    approved_by: b.approved_by,
    approved_at: iso(b.approved_at),
    sent_by: b.sent_by,
    sent_at: iso(b.sent_at),
    ...(attempts ? { items: attempts.map(attemptView) } : {}),
  };
}

export interface WaitingPayoutView {
  transaction_id: number;
  reference: string;
  firm_id: number;
  firm: string;
  amount: string;
  payee_name: string;
  iban: string | null;
  method: "FAST" | "EFT";
  /**
   * Whose FAST limit judged `method`: the paying account's when the list was asked for one
   * (`?account=`), else the service-wide one (a batch uses its paying account's).
   */
  method_judged_by: "account" | "service";
  created_at: string;
  /** Null when it may be batched; else why not, in words. */
  not_batchable: string | null;
  /** The same as a code, for screens to translate. */
  not_batchable_code: NotBatchable | null;
  /** The last attempt's end and the bank's reason, when an earlier one came back. */
  last_attempt: { stage: string; reason: string | null } | null;
}

/**
 * A waiting payout as operators see it. `fits`: the ledger's guard, taken in the list's order
 * (oldest first, as a batching takes them; rules.ts `roomTaker`), asked only of one that may
 * otherwise go.
 */
export function waitingView(
  row: WaitingRow,
  fastLimit: number,
  judgedBy: WaitingPayoutView["method_judged_by"],
  fits: (w: WaitingWithdrawal) => boolean,
): WaitingPayoutView {
  const w = toWaiting(row);
  const why = whyNotBatchable(w) ?? (fits(w) ? null : "over_balance");
  return {
    transaction_id: row.id,
    reference: row.reference,
    firm_id: row.firm_id,
    firm: row.firm_name,
    amount: formatMinor(w.amount),
    payee_name: payeeName(w),
    iban: row.iban,
    method: payoutMethod(w, fastLimit),
    method_judged_by: judgedBy,
    created_at: iso(row.created_at) ?? "",
    not_batchable: why ? NOT_BATCHABLE_WORDS[why] : null,
    not_batchable_code: why,
    last_attempt: row.last_stage ? { stage: row.last_stage, reason: row.last_reason } : null,
  };
}

/** A flagged attempt with what an operator needs to find it: its withdrawal's reference and firm. */
export interface FlaggedPayoutView extends PayoutAttemptView {
  reference: string;
  firm_id: number;
}
