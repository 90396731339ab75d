/**
 * A payout batch as its bank files see it, and the rules every format shares: what a batch must be
 * before any byte of a file is written, its count and control sum, amounts as decimals.
 */
import { isValidTurkishIban } from "../../domain/iban.js";
import { MAX_AMOUNT_MINOR } from "../../domain/money.js";
import { bankPayeeName, bankSafeText, NAME_MAX } from "./bank-text.js";

export interface BatchFileInput {
  batchId: number;
  /** ISO 20022 MsgId, stable for the batch (e.g. "PI-B000123"), ≤35 chars [A-Za-z0-9-]. */
  messageId: string;
  /** When the batch was made, epoch ms: the file's creation time, so the same batch gives the same bytes. */
  createdAt: number;
  /** Requested execution date (Türkiye day, "YYYY-MM-DD"). */
  executionDate: string;
  debtor: { name: string; iban: string; bankName: string };
  payouts: readonly BatchFilePayout[];
}

export interface BatchFilePayout {
  /** The attempt's payment id: ≤35 chars, [A-Z0-9] only; it is the EndToEndId and leads the remittance text. */
  paymentId: string;
  amountMinor: number; // kuruş, integer > 0
  payeeName: string; // as the contract gives it (may hold Turkish letters, odd characters)
  payeeIban: string; // already validated TR IBAN, no spaces
  method: "FAST" | "EFT";
  /** Free text after the payment id, e.g. the merchant reference; may be long or hostile. */
  remittance: string;
}

/** A file as it is written: one chunk per payout (and a head and a tail), never the whole at once. */
export type FileChunks = Iterable<Buffer>;

const MESSAGE_ID = /^[A-Za-z0-9-]{1,35}$/;
const PAYMENT_ID = /^[A-Z0-9]{1,35}$/;
const DAY = /^\d{4}-\d{2}-\d{2}$/;

function isDay(value: string): boolean {
  return DAY.test(value) && new Date(`${value}T00:00:00Z`).toISOString().slice(0, 10) === value;
}

function isTurkishIban(value: string): boolean {
  return /^TR\d{24}$/.test(value) && isValidTurkishIban(value);
}

function payoutProblems(p: BatchFilePayout, seen: Set<string>): string[] {
  const found: string[] = [];
  const id = PAYMENT_ID.test(p.paymentId) ? p.paymentId : JSON.stringify(p.paymentId);
  if (!PAYMENT_ID.test(p.paymentId)) found.push(`payment id ${id} is not 1-35 of [A-Z0-9]`);
  else if (seen.has(p.paymentId)) found.push(`payment id ${id} is in the batch twice`);
  seen.add(p.paymentId);
  if (!Number.isSafeInteger(p.amountMinor) || p.amountMinor <= 0 || p.amountMinor > MAX_AMOUNT_MINOR) {
    found.push(`payout ${id}: amount ${p.amountMinor} is not a whole number of kuruş in range`);
  }
  if (!isTurkishIban(p.payeeIban)) found.push(`payout ${id}: the payee IBAN is not a valid TR IBAN`);
  if (bankPayeeName(p.payeeName) === "") found.push(`payout ${id}: nothing of the payee's name is left`);
  if (p.method !== "FAST" && p.method !== "EFT") found.push(`payout ${id}: method is not FAST or EFT`);
  return found;
}

/**
 * What keeps a batch from being written as a file, each said in words; empty when it can be. The
 * batching asks this before it puts payouts together, so a file is never refused half-way: a
 * problem here is a bug in what called the file's function.
 */
export function batchFileProblems(input: BatchFileInput): string[] {
  const found: string[] = [];
  if (!MESSAGE_ID.test(input.messageId)) found.push("the message id is not 1-35 of [A-Za-z0-9-]");
  if (!Number.isSafeInteger(input.createdAt)) found.push("the creation time is not epoch milliseconds");
  if (!isDay(input.executionDate)) found.push("the execution date is not a YYYY-MM-DD day");
  if (!isTurkishIban(input.debtor.iban)) found.push("the debtor IBAN is not a valid TR IBAN");
  if (bankSafeText(input.debtor.name, NAME_MAX) === "") found.push("nothing of the debtor's name is left");
  if (input.payouts.length === 0) found.push("the batch has no payouts");
  const seen = new Set<string>();
  for (const p of input.payouts) found.push(...payoutProblems(p, seen));
  return found;
}

/** Throws with every problem named: called before the first byte, so no half file is ever written. */
export function assertBatchFileInput(input: BatchFileInput): void {
  const found = batchFileProblems(input);
  if (found.length > 0) throw new Error(`batch ${input.batchId} cannot be written: ${found.join("; ")}`);
}

/** The batch's count and control sum; the sum is a bigint so no count of payouts can lose a kuruş. */
export function batchTotals(payouts: readonly BatchFilePayout[]): { count: number; sumMinor: bigint } {
  let sumMinor = 0n;
  for (const p of payouts) sumMinor += BigInt(p.amountMinor);
  return { count: payouts.length, sumMinor };
}

/** "1234.50" (or "1234,50") from kuruş, by integer arithmetic only. */
export function decimalAmount(minor: number | bigint, point: "." | "," = "."): string {
  const value = BigInt(minor);
  const sign = value < 0n ? "-" : "";
  const abs = value < 0n ? -value : value;
  return `${sign}${abs / 100n}${point}${String(abs % 100n).padStart(2, "0")}`;
}

/** A file's chunks as one Buffer: for tests and small downloads; a route streams the chunks. */
export async function collectFile(chunks: FileChunks | AsyncIterable<Buffer>): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const chunk of chunks) parts.push(chunk);
  return Buffer.concat(parts);
}
