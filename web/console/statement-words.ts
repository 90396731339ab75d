/**
 * Bank statement lines in the console's words: the API writes states and evidence as codes, an
 * operator reads "öneri var", "tutar aynı".
 */
import { TURKEY_TIME_ZONE } from "../../src/domain/turkey-time.js";
import type { AccountView } from "../../src/management/views.js";
import type { LineView } from "../../src/reconciliation/line-views.js";
import type { Evidence } from "../../src/reconciliation/matching.js";
import type { Lang, T } from "./i18n";
import { money2, when } from "./ui";

/** A bank statement line as the API answers it. */
export type StatementLine = LineView;

/** A payment account as the account list answers it (the part these screens show). */
export type PaymentAccount = Pick<AccountView, "id" | "bank_name" | "iban">;
/** An account in a select or beside a line: its number, bank and the IBAN's end (a phone's width). */
export const accountLabel = (a: PaymentAccount) => `#${a.id} ${a.bank_name} · …${a.iban.slice(-4)}`;

/** What the matching found for one deposit. */
export type LineEvidence = Evidence;

/** The states a line may be in, and the filter's choices; `open` is what still waits for a person. */
export const OPEN_STATES = ["suggested", "unmatched", "after_cancellation"];
export const STATE_FILTERS = [
  "open",
  "suggested",
  "unmatched",
  "after_cancellation",
  "matched",
  "not_ours",
  "debit",
  "all",
];

const STATE_KEYS = {
  open: "lineOpen",
  matched: "lineMatched",
  all: "any",
  suggested: "lineSuggested",
  unmatched: "lineUnmatched",
  after_cancellation: "lineAfterCancellation",
  approved: "lineApproved",
  settled: "lineSettled",
  debit: "lineDebit",
  not_ours: "lineNotOurs",
} as const;

/** A line's state (or a filter's) in the console's language; an unknown one as the API wrote it. */
export function lineStateText(state: string, t: T): string {
  const key = STATE_KEYS[state as keyof typeof STATE_KEYS];
  return key ? t(key) : state;
}

export function sourceText(source: string, t: T): string {
  const key = ({ file: "sourceFile", feed: "sourceFeed", hand: "sourceHand" } as const)[
    source as "file" | "feed" | "hand"
  ];
  return key ? t(key) : source;
}

/**
 * When the bank booked it: a line with a date only (MT940, a typed day) shows the day alone, since
 * a time would be made up (midnight) and an operator would read it as the moment of the transfer.
 */
export function bookedText(line: { booked_at: string; date_only: boolean }, lang: Lang): string {
  if (!line.date_only) return when(line.booked_at, lang);
  return new Date(line.booked_at).toLocaleDateString(lang === "tr" ? "tr-TR" : "en-GB", {
    timeZone: TURKEY_TIME_ZONE,
  });
}

/** An amount as the console shows money, with its currency when the bank's is not the lira. */
export function lineAmount(line: { amount: string; currency?: string }): string {
  const currency = !line.currency || line.currency === "TRY" ? "TL" : line.currency;
  return `${money2(line.amount)} ${currency}`;
}

/** The evidence in plain words, strongest first: "kod eşleşti", "tutar aynı", "isim kısmi"… */
export function evidenceWords(e: LineEvidence | null | undefined, t: T): string[] {
  if (!e) return [];
  const words: string[] = [];
  if (e.code === "exact") words.push(t("evCodeExact"));
  if (e.code === "near") words.push(t("evCodeNear"));
  if (e.amount === "exact") words.push(t("evAmountExact"));
  if (e.amount === "over") words.push(t("evAmountOver"));
  if (e.amount === "under") words.push(t("evAmountUnder"));
  const name = e.name;
  if (name === "full") words.push(t("evNameFull"));
  if (name === "partial") words.push(t("evNamePartial"));
  if (name === "none") words.push(t("evNameNone"));
  if (e.idInText) words.push(t("evIdInText"));
  return words;
}
