import { createHash } from "node:crypto";
import { turkeyDayOf } from "../domain/turkey-time.js";

/**
 * One entry of a bank's statement for one of our payment accounts, however it came in (a camt.053
 * or MT940 file, the live feed, typed by an operator): docs/reconciliation.md.
 */
export interface StatementLine {
  /** When the bank booked it, epoch ms; with `dateOnly`, the start of the booking day in Türkiye. */
  bookedAt: number;
  /** The bank gave a date without a time (MT940 does): the line counts as any time of that day. */
  dateOnly: boolean;
  /** Always positive, in minor units (kuruş); `direction` says which way it went. */
  amountMinor: number;
  direction: "credit" | "debit";
  currency: string;
  senderName: string | null;
  senderIban: string | null;
  description: string;
  /** The bank's own reference of the entry (camt.053 AcctSvcrRef, MT940 :61: bank reference). */
  bankRef: string | null;
  /**
   * A reversal (camt.053 RvslInd, MT940 RC/RD): money the bank sends back, such as a payout that
   * failed; it never approves a deposit, whoever it names.
   */
  reversal?: boolean;
}

/** What a statement reader hands over as it reads: each entry, then its statement's header. */
export interface StatementEvents {
  statement(header: StatementHeader): void;
  line(line: StatementLine): void;
}

/** What a statement says about itself, checked against its entries (statement-check.ts). */
export interface StatementHeader {
  accountIban: string | null;
  /** camt.053 ElctrncSeqNb, MT940 :28C: statement number. */
  sequence: string | null;
  openingMinor: number | null;
  closingMinor: number | null;
  currency: string | null;
  /**
   * The days the statement covers, epoch ms (camt.053 FrToDt; MT940 the opening and closing
   * balances' dates): its entries are booked within them (booking-dates.ts).
   */
  periodFrom: number | null;
  periodTo: number | null;
}

/** A header before anything of it is read. */
export function emptyHeader(): StatementHeader {
  return {
    accountIban: null,
    sequence: null,
    openingMinor: null,
    closingMinor: null,
    currency: null,
    periodFrom: null,
    periodTo: null,
  };
}

/**
 * The key that makes the same entry one line whichever way and however often it arrives: the
 * bank's reference where it gives one, else the entry's content (booking day, amount, direction,
 * sender, description). Two genuinely different payments with the same content on the same day
 * and no bank reference would be taken for one: banks that leave the reference out are the ones
 * that put a running number in the description.
 */
export function lineKey(line: StatementLine): string {
  if (line.bankRef !== null && line.bankRef.trim() !== "") return `ref:${line.bankRef.trim()}`;
  const day = turkeyDayOf(line.bookedAt);
  const content = [
    day,
    line.direction,
    line.amountMinor,
    line.currency,
    (line.senderName ?? "").trim().toUpperCase(),
    (line.senderIban ?? "").replace(/\s+/g, "").toUpperCase(),
    line.description.replace(/\s+/g, " ").trim().toUpperCase(),
  ].join("\u001f");
  return `sum:${createHash("sha256").update(content).digest("hex").slice(0, 32)}`;
}
