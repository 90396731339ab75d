/**
 * A statement file as it arrives (a request body, a file the CLI read): its format told from its
 * first characters, its bytes decoded as UTF-8 (a file in another encoding is refused, not read as
 * mojibake), and every statement in it read into its header, its lines and whether it adds up.
 */
import { statementText } from "../domain/text-rules.js";
import { StatementError } from "./amounts.js";
import { outsideBookingWindow, outsidePeriod } from "./booking-dates.js";
import { camtReader } from "./camt053.js";
import { mt940Reader } from "./mt940.js";
import type { StatementHeader, StatementLine } from "./statement.js";
import { cutText, STATEMENT_LIMITS } from "./statement-limits.js";

/** What a statement says of itself, and what its entries add up to (they are not kept here). */
export interface StatementTally {
  header: StatementHeader;
  lines: number;
  /** Credits minus debits, minor units. */
  movedMinor: number;
  /** The earliest and latest booking times of its entries (null without entries). */
  firstBooked: number | null;
  lastBooked: number | null;
  /** Why the statement does not add up or is incomplete, for the operators; empty when it does. */
  doubts: string[];
  /**
   * Why its lines may approve nothing (it does not add up, or gives no balances to tell): they are
   * suggested to the operators instead. Null when it adds up.
   */
  unbalanced: BalanceDoubt | null;
}

/** Why a statement's balances do not vouch for its entries, and by how much they miss. */
export interface BalanceDoubt {
  message: string;
  /** Closing − (opening + entries), minor units; null when a balance is missing. */
  differenceMinor: number | null;
}

/**
 * Where the entries go as they are read: a line at a time, then its statement's tally once the
 * statement ends (after its lines). Awaited in order, a chunk of the file at a time, so a sink that
 * writes to the store slows the reading down instead of piling lines up in memory.
 */
export interface StatementSink {
  line?(line: StatementLine): void | Promise<void>;
  statement?(tally: StatementTally): void | Promise<void>;
}

export type StatementFormat = "camt.053" | "mt940";

function formatOf(start: string): StatementFormat {
  const head = start.replace(/^\uFEFF/, "").trimStart();
  if (head.startsWith("<")) return "camt.053";
  if (head.startsWith(":") || head.startsWith("{1:")) return "mt940";
  throw new StatementError("neither a camt.053 (XML) nor an MT940 statement");
}

/**
 * What a statement says of itself, against its entries: opening + entries = closing. Null when it
 * adds up; else why not, with the difference (the same words for a file and a feed's batch).
 */
export function balanceDoubt(
  balances: { openingMinor: number | null; closingMinor: number | null },
  movedMinor: number,
): BalanceDoubt | null {
  const { openingMinor, closingMinor } = balances;
  if (openingMinor === null || closingMinor === null)
    return {
      message: "no opening or closing balance: whether entries are missing cannot be told",
      differenceMinor: null,
    };
  const expected = openingMinor + movedMinor;
  if (expected === closingMinor) return null;
  const differenceMinor = closingMinor - expected;
  return {
    message: `the entries do not add up: opening ${openingMinor} + entries ${movedMinor} = ${expected}, the closing balance says ${closingMinor}, a difference of ${differenceMinor} (minor units)`,
    differenceMinor,
  };
}

export interface ReadOptions {
  /** Today, for the window of booking dates (booking-dates.ts); without it only the period counts. */
  now?: number;
}

type Event = { line: StatementLine } | { tally: StatementTally };
/** How long reading may hold the event loop before it lets other requests in. */
const YIELD_AFTER_MS = 8;

/** A value read as the bank wrote it (an IBAN, a reference, a number): refused if too long. */
function exactValue(value: string | null, max: number, what: string): string | null {
  if (value === null) return null;
  const text = statementText(value);
  if (text === undefined) throw new StatementError(`${what} holds control characters (a NUL, for one)`);
  if (text.length > max) throw new StatementError(`${what} is longer than ${max} characters`);
  return text === "" ? null : text;
}

/** A name or description: control characters refused, layout marks dropped, cut past `max`. */
function freeText(value: string, max: number, what: string): string {
  const text = statementText(value);
  if (text === undefined)
    throw new StatementError(`${what} holds control characters (a NUL, for one): not a statement's text`);
  return cutText(text, max);
}

/** A line as every door keeps it (statement-limits.ts), or the fault that refuses the file. */
function checkedLine(line: StatementLine, options: ReadOptions): StatementLine {
  if (line.amountMinor <= 0) throw new StatementError("an entry of zero: an entry moves money");
  if (!/^[A-Z]{3}$/.test(line.currency))
    throw new StatementError(
      `an entry's currency "${line.currency.slice(0, 10)}" is not a three-letter code`,
    );
  const late = options.now === undefined ? null : outsideBookingWindow(line.bookedAt, options.now);
  if (late) throw new StatementError(`an entry is booked ${late} (${new Date(line.bookedAt).toISOString()})`);
  const name =
    line.senderName === null ? null : freeText(line.senderName, STATEMENT_LIMITS.name, "a sender's name");
  return {
    ...line,
    description: freeText(line.description, STATEMENT_LIMITS.description, "an entry's description"),
    senderName: name === "" ? null : name,
    senderIban: exactValue(line.senderIban, STATEMENT_LIMITS.value, "a sender's IBAN"),
    bankRef: exactValue(line.bankRef, STATEMENT_LIMITS.reference, "an entry's bank reference"),
  };
}

function checkedHeader(header: StatementHeader): StatementHeader {
  return {
    ...header,
    accountIban: exactValue(header.accountIban, STATEMENT_LIMITS.value, "the statement's account"),
    sequence: exactValue(header.sequence, STATEMENT_LIMITS.value, "the statement's number"),
    currency: exactValue(header.currency, STATEMENT_LIMITS.value, "the statement's currency"),
  };
}

/**
 * Reads every statement of the file into `sink`; throws StatementError at the first fault, after
 * the sink has had what came before it (a caller that must change nothing for a faulty file reads
 * it once to check it, import.ts). Returns each statement's tally.
 */
export async function readStatementFile(
  chunks: AsyncIterable<Uint8Array | string>,
  sink: StatementSink = {},
  options: ReadOptions = {},
): Promise<{ format: StatementFormat; statements: StatementTally[] }> {
  const decoder = new TextDecoder("utf-8", { fatal: true });
  const statements: StatementTally[] = [];
  const pending: Event[] = [];
  let tally = {
    lines: 0,
    movedMinor: 0,
    firstBooked: null as number | null,
    lastBooked: null as number | null,
  };
  let entries = 0;
  const events = {
    statement(read: StatementHeader) {
      if (statements.length >= STATEMENT_LIMITS.statements)
        throw new StatementError(`more than ${STATEMENT_LIMITS.statements} statements in one file`);
      const header = checkedHeader(read);
      if (tally.firstBooked !== null && tally.lastBooked !== null) {
        const outside = outsidePeriod(tally.firstBooked, tally.lastBooked, {
          from: header.periodFrom,
          to: header.periodTo,
        });
        if (outside) throw new StatementError(outside);
      }
      const unbalanced = balanceDoubt(header, tally.movedMinor);
      const done = { header, ...tally, doubts: unbalanced ? [unbalanced.message] : [], unbalanced };
      statements.push(done);
      pending.push({ tally: done });
      tally = { lines: 0, movedMinor: 0, firstBooked: null, lastBooked: null };
    },
    line(read: StatementLine) {
      if (++entries > STATEMENT_LIMITS.entries)
        throw new StatementError(`more than ${STATEMENT_LIMITS.entries} entries in one file`);
      const line = checkedLine(read, options);
      tally.lines++;
      tally.movedMinor += line.direction === "credit" ? line.amountMinor : -line.amountMinor;
      tally.firstBooked = Math.min(tally.firstBooked ?? line.bookedAt, line.bookedAt);
      tally.lastBooked = Math.max(tally.lastBooked ?? line.bookedAt, line.bookedAt);
      pending.push({ line });
    },
  };
  let worked = performance.now();
  /**
   * Chunks already buffered come as resolved promises, one after another, and so does a sink that
   * answers from memory: the event loop is let go every few milliseconds of reading and matching,
   * so that other requests are not held back until the file is done.
   */
  const breathe = async () => {
    if (performance.now() - worked <= YIELD_AFTER_MS) return;
    await new Promise((resolve) => setImmediate(resolve));
    worked = performance.now();
  };
  const drain = async () => {
    for (const event of pending.splice(0)) {
      if ("line" in event) await sink.line?.(event.line);
      else await sink.statement?.(event.tally);
      await breathe();
    }
  };
  let reader: ReturnType<typeof camtReader> | undefined;
  let format: StatementFormat | undefined;
  // The start is held until it shows the format: a first chunk may be a byte or a few spaces.
  let start = "";
  const feed = (text: string, last: boolean) => {
    if (!reader) {
      start += text;
      if (start.replace(/^\uFEFF/, "").trimStart().length < 3 && !last) return;
      if (start.trim() === "") return;
      format = formatOf(start);
      reader = format === "camt.053" ? camtReader(events) : mt940Reader(events);
      [text, start] = [start.replace(/^\uFEFF/, ""), ""];
    }
    if (text !== "") reader.write(text);
  };
  try {
    for await (const chunk of chunks) {
      feed(typeof chunk === "string" ? chunk : decoder.decode(chunk, { stream: true }), false);
      await drain();
      await breathe();
    }
    feed(decoder.decode(), true);
  } catch (err) {
    if (err instanceof TypeError) throw new StatementError("the file is not UTF-8 text");
    throw err;
  }
  if (!reader || !format) throw new StatementError("the file is empty");
  reader.end();
  await drain();
  if (statements.length === 0) throw new StatementError("no statement in the file");
  return { format, statements };
}
