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
  /**
   * The other party: for a credit the debtor (who sent the money), for a debit the creditor (the
   * payee: camt.053 `RltdPties/Cdtr[/Pty]/Nm` and `CdtrAcct/Id/IBAN`). A batch booked as one debit
   * names no one.
   */
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
  /**
   * The id the payer's side gave the transfer (camt.053 `TxDtls/Refs/EndToEndId`, never the
   * literal NOTPROVIDED): for our payouts, the attempt's payment id.
   */
  endToEndId?: string | null;
  /** A batch booked as one entry: each of its transfers' EndToEndIds, in the bank's order. */
  endToEndIds?: readonly string[];
  /**
   * The line gives back an earlier payout (camt.053 `RtrInf`, a return's bank transaction code, an
   * "İADE" narrative), with the bank's reason (an ISO code such as AC04, and its words) when it says one.
   */
  returnInfo?: { reason: string | null } | null;
  /** A bank's charge (camt.053 family or sub-family CHRG, MT940 NCHG): never a payout. */
  fee?: boolean;
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
 * sender, description, and the transfers' EndToEndIds where the line has them). Two genuinely
 * different payments with the same content on the same day and no bank reference would be taken
 * for one: banks that leave the reference out are the ones that put a running number in the
 * description. The EndToEndId joins the content rather than keying alone: a payout's return carries
 * its debit's id, and must stay a line of its own. A line without one keys as it always has.
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
    ...transferIds(line),
  ].join("\u001f");
  return `sum:${createHash("sha256").update(content).digest("hex").slice(0, 32)}`;
}

/** The line's EndToEndIds as the key takes them: nothing at all for a line without any. */
function transferIds(line: StatementLine): string[] {
  const one = line.endToEndId?.trim() ?? "";
  const many = line.endToEndIds ?? [];
  if (one === "" && many.length === 0) return [];
  return [`e2e:${one}`, many.join(",")];
}
