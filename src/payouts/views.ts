/** Payouts as operators see them, in the console and the CLI: amounts as text, times as ISO. */
import { formatMinor } from "../domain/money.js";
import type { PayoutAttemptRow, PayoutBatchRow, WaitingRow } from "../store/payouts/payout-batches.js";
import { toWaiting } from "./batching.js";
import { NOT_BATCHABLE_WORDS, payeeName, payoutMethod, whyNotBatchable } from "./rules.js";

const iso = (at: number | null) => (at === null ? null : new Date(Number(at)).toISOString());

export interface PayoutAttemptView {
  attempt: number;
  transaction_id: number;
  payment_id: string;
  amount: string;
  payee_name: string;
  payee_iban: string;
  method: "FAST" | "EFT";
  stage: PayoutAttemptRow["stage"];
  reason: string | null;
  flag: string | null;
  sent_at: string | null;
  ended_at: string | null;
}

export function attemptView(a: PayoutAttemptRow): PayoutAttemptView {
  return {
    attempt: a.id,
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
  second_reason: string | null;
  created_by: string;
  created_at: string;
  approved_by: string | null;
  approved_at: string | null;
  sent_by: string | null;
  sent_at: string | null;
  items?: PayoutAttemptView[];
}

export function batchView(b: PayoutBatchRow, attempts?: readonly PayoutAttemptRow[]): PayoutBatchView {
  return {
    batch: b.id,
    stage: b.stage,
    account_id: b.account_id,
    firm_id: b.firm_id,
    payouts: b.payouts,
    total: formatMinor(Number(b.total)),
    second_reason: b.second_reason,
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
  created_at: string;
  /** Null when it may be batched; else why not, in words. */
  not_batchable: string | null;
  /** The last attempt's end and the bank's reason, when an earlier one came back. */
  last_attempt: { stage: string; reason: string | null } | null;
}

export function waitingView(row: WaitingRow, fastLimit: number): WaitingPayoutView {
  const w = toWaiting(row);
  const why = whyNotBatchable(w);
  return {
    transaction_id: row.id,
    reference: row.reference,
    firm_id: row.firm_id,
    firm: row.firm_name,
    amount: formatMinor(w.amount),
    payee_name: payeeName(w),
    iban: row.iban,
    method: payoutMethod(w, fastLimit),
    created_at: iso(row.created_at) ?? "",
    not_batchable: why ? NOT_BATCHABLE_WORDS[why] : null,
    last_attempt: row.last_stage ? { stage: row.last_stage, reason: row.last_reason } : null,
  };
}
