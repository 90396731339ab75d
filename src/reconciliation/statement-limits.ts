/**
 * What a statement file may hold, checked while it streams, before anything accumulates: a file
 * of any shape up to the upload's 200 MB is read (or refused) in bounded memory and time
 * (docs/reconciliation.md, "Limits"). Names and descriptions past their length are cut and end
 * with CUT_MARK; any other text past its length (an amount, a date, an IBAN, a reference) refuses
 * the file, since a cut reference is no longer the bank's.
 */
export const STATEMENT_LIMITS = {
  /** Statements in one file: a bank sends one per account and day. */
  statements: 1_000,
  /**
   * Entries in one file, all statements together: a file at this limit is read, matched and written
   * within 60 s beside a busy day's deposits on two cores (docs/BENCHMARKS.md); a real account's
   * day is far below it, and a 100,000-line statement fits.
   */
  entries: 150_000,
  /** How deep XML elements nest: camt.053's deepest path is about 14. */
  depth: 40,
  /** XML elements in one file: an entry takes about 30, so the entries' limit fits. */
  elements: 12_000_000,
  /** Attributes of one XML element: camt.053 uses one (Ccy). */
  attributes: 16,
  /** A sender's name, as the feed takes it. */
  name: 140,
  /** An entry's description, as the feed takes it. */
  description: 500,
  /** The bank's reference of an entry, as the feed takes it. */
  reference: 64,
  /** An EndToEndId: ISO 20022's Max35Text; longer is not the id we sent, and refuses the file. */
  endToEndId: 35,
  /** The transfers of one entry (a batch booked as one debit): their ids are kept while it is read. */
  transfers: 20_000,
  /** A return's reason: its code and the bank's words, cut past this. */
  returnReason: 140,
  /** Any other value read (IBAN, amount, date, code, statement number). */
  value: 64,
  /** Text kept of any one XML element or MT940 field while it is read: past it, only its length counts. */
  kept: 2_000,
  /** One line of an MT940 file: SWIFT's lines are 65 characters. */
  mt940Line: 2_000,
} as const;

/** What ends a name or a description that was cut. */
export const CUT_MARK = "…";

/** `text` at most `max` characters, the last of them CUT_MARK when it was longer. */
export function cutText(text: string, max: number): string {
  if (text.length <= max) return text;
  // Never half a surrogate pair: the cut falls before a character that takes two UTF-16 units.
  const kept = text.slice(0, max - 1).replace(/[\uD800-\uDBFF]$/, "");
  return `${kept.trimEnd()}${CUT_MARK}`;
}
