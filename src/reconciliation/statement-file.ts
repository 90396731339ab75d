import { StatementError } from "./amounts.js";
import { camtReader } from "./camt053.js";
import { mt940Reader } from "./mt940.js";
import type { StatementHeader, StatementLine } from "./statement.js";

/**
 * A statement file as it arrives (a request body, a file the CLI read): its format told from its
 * first characters, its bytes decoded as UTF-8 (a file in another encoding is refused, not read as
 * mojibake), and every statement in it read into its header, its lines and whether it adds up.
 */
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

/** What a statement says of itself, against its entries: opening + entries = closing. */
export function doubtsOf(header: StatementHeader, movedMinor: number): string[] {
  if (header.openingMinor === null || header.closingMinor === null)
    return ["no opening or closing balance: whether entries are missing cannot be told"];
  const expected = header.openingMinor + movedMinor;
  return expected === header.closingMinor
    ? []
    : [
        `the entries do not add up: opening ${header.openingMinor} + entries ${movedMinor} = ${expected}, the closing balance says ${header.closingMinor} (minor units)`,
      ];
}

type Event = { line: StatementLine } | { tally: StatementTally };
// Tabs, line and carriage returns are text; the other C0 controls never are (PostgreSQL refuses NUL).
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/u;

/**
 * Reads every statement of the file into `sink`; throws StatementError at the first fault, after
 * the sink has had what came before it (a caller that must change nothing for a faulty file reads
 * it once to check it, import.ts). Returns each statement's tally.
 */
export async function readStatementFile(
  chunks: AsyncIterable<Uint8Array | string>,
  sink: StatementSink = {},
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
  const events = {
    statement(header: StatementHeader) {
      const named = [header.accountIban, header.sequence, header.currency];
      if (named.some((f) => f !== null && CONTROL.test(f)))
        throw new StatementError("the statement's header holds control characters");
      const done = { header, ...tally, doubts: doubtsOf(header, tally.movedMinor) };
      statements.push(done);
      pending.push({ tally: done });
      tally = { lines: 0, movedMinor: 0, firstBooked: null, lastBooked: null };
    },
    line(line: StatementLine) {
      const fields = [line.description, line.senderName, line.senderIban, line.bankRef, line.currency];
      if (fields.some((f) => f !== null && CONTROL.test(f)))
        throw new StatementError(
          "an entry holds control characters (a NUL, for one): not a statement's text",
        );
      tally.lines++;
      tally.movedMinor += line.direction === "credit" ? line.amountMinor : -line.amountMinor;
      tally.firstBooked = Math.min(tally.firstBooked ?? line.bookedAt, line.bookedAt);
      tally.lastBooked = Math.max(tally.lastBooked ?? line.bookedAt, line.bookedAt);
      pending.push({ line });
    },
  };
  const drain = async () => {
    for (const event of pending.splice(0)) {
      if ("line" in event) await sink.line?.(event.line);
      else await sink.statement?.(event.tally);
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
