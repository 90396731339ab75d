/**
 * The rules of a payout, pure: which pending withdrawals may be put in a batch (and why not), by
 * which method each goes, whether a batch needs a second operator, whether an EFT file is made
 * outside EFT hours, and when a sent payout is overdue. The store writes what these decide; the
 * database has the last word on the money rules (migration 20261206T1000).
 */
import { isValidTurkishIban } from "../domain/iban.js";
import { formatMinor } from "../domain/money.js";
import type { PayoutSettings } from "../domain/payout-settings.js";
import { withoutControlCharacters } from "../domain/text-rules.js";
import { TURKEY_OFFSET_MS } from "../domain/turkey-time.js";

/** A pending withdrawal as the batching reads it. */
export interface WaitingWithdrawal {
  id: number;
  firmId: number;
  amount: number;
  method: string | null;
  firstName: string;
  middleName: string | null;
  lastName: string;
  iban: string | null;
  firmActive: boolean;
  firmSandbox: boolean;
  /** An operator marked it as being paid by hand (ADR 0010): never batched meanwhile. */
  payingBy: string | null;
}

export type NotBatchable =
  | "iban_invalid"
  | "payee_name_empty"
  | "firm_inactive"
  | "paying_by_hand"
  | "test_firm"
  | "over_balance";

export const NOT_BATCHABLE_WORDS: Record<NotBatchable, string> = {
  iban_invalid: "the IBAN is not a valid Turkish IBAN",
  payee_name_empty: "the payee's name is empty",
  firm_inactive: "the firm is inactive",
  paying_by_hand: "an operator marked it as being paid by hand",
  test_firm: "a test firm's withdrawals are never paid out",
  over_balance: "the firm's balance (with its overdraft) does not cover it",
};

/** The payee's name as the contract gives it: first, middle (when a valid one was sent), last. */
export function payeeName(w: Pick<WaitingWithdrawal, "firstName" | "middleName" | "lastName">): string {
  return [w.firstName, w.middleName ?? "", w.lastName]
    .map((part) => withoutControlCharacters(part).replace(/\s+/g, " ").trim())
    .filter((part) => part !== "")
    .join(" ");
}

export const compactIban = (iban: string) => iban.replace(/[\s-]+/g, "").toUpperCase();

/** Why a withdrawal may not be put in a batch, or null when it may. */
export function whyNotBatchable(w: WaitingWithdrawal): NotBatchable | null {
  if (w.firmSandbox) return "test_firm";
  if (!w.firmActive) return "firm_inactive";
  if (w.payingBy !== null) return "paying_by_hand";
  if (w.iban === null || !isValidTurkishIban(w.iban)) return "iban_invalid";
  if (payeeName(w) === "") return "payee_name_empty";
  return null;
}

/**
 * The ledger's guard (docs/payouts.md): which payouts fit their firms' rooms (the firm's balance,
 * less what its unsent batches hold, plus its overdraft; null: not guarded), taken in the order
 * given (oldest first): each fits what the older ones that fit left. One that does not fit is left
 * out, and a later smaller one may still fit.
 */
export function withinRooms<P extends { firmId: number; amount: number }>(
  payouts: readonly P[],
  rooms: ReadonlyMap<number, number | null>,
): { fit: P[]; over: P[] } {
  const fits = roomTaker(rooms);
  const fit: P[] = [];
  const over: P[] = [];
  for (const p of payouts) (fits(p) ? fit : over).push(p);
  return { fit, over };
}

/** `withinRooms` one payout at a time: true when it fits what is left, which it then takes. */
export function roomTaker(
  rooms: ReadonlyMap<number, number | null>,
): (p: { firmId: number; amount: number }) => boolean {
  const left = new Map(rooms);
  return (p) => {
    const room = left.get(p.firmId) ?? null;
    if (room === null) return true;
    if (p.amount > room) return false;
    left.set(p.firmId, room - p.amount);
    return true;
  };
}

/**
 * FAST up to its limit per transfer, when the payee asked for FAST or named no method; EFT for the
 * rest (EFT and havale, which the bank routes itself, and anything above FAST's limit).
 */
export function payoutMethod(
  w: Pick<WaitingWithdrawal, "amount" | "method">,
  fastLimit: number,
): "FAST" | "EFT" {
  const asked = w.method?.toLowerCase() ?? "fast";
  return asked === "fast" && w.amount <= fastLimit ? "FAST" : "EFT";
}

/** What a batch is judged by for the two-person rule. */
export interface BatchWeight {
  total: number;
  largest: number;
  /** What the batching operator already batched today (Türkiye's day), before this batch. */
  operatorToday: number;
}

/** Which two-person rule holds a batch for a second operator: its code, the amount judged and the limit. */
export interface SecondRule {
  code: "batch_total" | "payout" | "operator_day";
  /** Minor units. */
  amount: number;
  /** Minor units. */
  limit: number;
}

/** Why a second operator must approve (the first rule that holds), or null when one operator is enough. */
export function secondApprovalReason(weight: BatchWeight, rules: PayoutSettings): SecondRule | null {
  const over = (code: SecondRule["code"], amount: number, limit: number | null): SecondRule | null =>
    limit !== null && amount > limit ? { code, amount, limit } : null;
  return (
    over("batch_total", weight.total, rules.twoPersonBatchAbove) ??
    over("payout", weight.largest, rules.twoPersonPayoutAbove) ??
    over("operator_day", weight.operatorToday + weight.total, rules.twoPersonDayAbove)
  );
}

const SECOND_RULE_WORDS: Record<SecondRule["code"], string> = {
  batch_total: "the batch's total",
  payout: "a payout of",
  operator_day: "the operator's batches today",
};

/** A second rule as the views carry it: its code, and the amounts as text ("120000.00"). */
export interface SecondRuleView {
  code: SecondRule["code"];
  amount: string;
  limit: string;
}

export const secondRuleView = (rule: SecondRule): SecondRuleView => ({
  code: rule.code,
  amount: formatMinor(rule.amount),
  limit: formatMinor(rule.limit),
});

/** A second rule in words, for the CLI and the audit: "the batch's total 120000.00 is above 100000.00". */
export function secondRuleWords(rule: SecondRule): string {
  return `${SECOND_RULE_WORDS[rule.code]} ${formatMinor(rule.amount)} is above ${formatMinor(rule.limit)}`;
}

/**
 * A second rule as the batch keeps it (payout_batches.second_reason): its JSON, so that the code
 * and both amounts are read back as written, never parsed out of a sentence.
 */
export const storedSecondRule = (rule: SecondRule): string => JSON.stringify(rule);

/** The rule a batch keeps, or null when it keeps none (or words from before rules were kept as JSON). */
export function secondRuleOf(stored: string | null): SecondRule | null {
  if (stored === null || !stored.startsWith("{")) return null;
  try {
    const v = JSON.parse(stored) as Partial<SecondRule>;
    const codes: readonly unknown[] = Object.keys(SECOND_RULE_WORDS);
    return codes.includes(v.code) && Number.isSafeInteger(v.amount) && Number.isSafeInteger(v.limit)
      ? (v as SecondRule)
      : null;
  } catch {
    return null;
  }
}

/** EFT runs on weekdays, 08:30 to 17:30 in Türkiye (public holidays are not known here). */
export function withinEftHours(at: number): boolean {
  const local = new Date(at + TURKEY_OFFSET_MS);
  const day = local.getUTCDay();
  const minutes = local.getUTCHours() * 60 + local.getUTCMinutes();
  return day !== 0 && day !== 6 && minutes >= 8 * 60 + 30 && minutes < 17 * 60 + 30;
}

/** How long a sent payout may go without its debit on the statement before operators are told. */
export const OVERDUE_FAST_MS = 60 * 60_000;
export const OVERDUE_EFT_BUSINESS_DAYS = 2;

/** When a payout sent at `sentAt` becomes overdue: an hour for FAST, two business days for EFT. */
export function overdueAt(
  method: "FAST" | "EFT",
  sentAt: number,
  opts = { fastMs: OVERDUE_FAST_MS, eftDays: OVERDUE_EFT_BUSINESS_DAYS },
): number {
  if (method === "FAST") return sentAt + opts.fastMs;
  let at = sentAt;
  let left = opts.eftDays;
  while (left > 0) {
    at += 86_400_000;
    const day = new Date(at + TURKEY_OFFSET_MS).getUTCDay();
    if (day !== 0 && day !== 6) left--;
  }
  return at;
}
