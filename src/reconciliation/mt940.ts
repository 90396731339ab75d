/**
 * A SWIFT MT940 customer statement, read a line at a time (our own reader: the registry's MT940
 * packages are years without a release; docs/adr/0012-bank-statements.md). Fields begin with a tag
 * at the start of a line (`:61:`) and run to the next tag; a statement ends with `-` (or `-}`
 * inside SWIFT's `{4:` block), and a file may hold several.
 *
 *   :25:  the account (an IBAN, perhaps with a prefix or a currency after a slash)
 *   :28C: the statement number[/sequence]
 *   :60F: / :60M: the opening balance   C|D YYMMDD CCY amount
 *   :61:  an entry   YYMMDD [MMDD] C|D|RC|RD [funds code] amount N|F|S type ref [//bank ref] [\n more]
 *         (type CHG or COM on a debit: a bank's charge; RTI on a credit: a returned item)
 *   :86:  the entry's narrative: Turkish banks write free text ("FAST GELEN ... AHMET YILMAZ ...");
 *         some use `?NN` subfields (?20–?29 the description, ?32–?33 the name, ?31 the IBAN)
 *   :62F: / :62M: the closing balance
 * An entry's date is its booking day, without a time.
 *
 * A narrative (`:86:`) carries the payer's own words, so it is read by the format's grammar: a line
 * in it that begins like a tag is a tag only where one may follow the narrative (the next entry or
 * the closing balance, well-formed), and a lone `-` in it ends the message only when a new message
 * or the end of the file follows. Anything else is the narrative's text. What a payer could still
 * write as an entry breaks the statement's balance, and an unbalanced statement approves nothing
 * (import.ts).
 */
import { TURKEY_ZONE } from "../domain/turkey-time.js";
import { minorUnits, StatementError } from "./amounts.js";
import { isRealDay } from "./booking-dates.js";
import { ibanInNarrative, senderInNarrative } from "./narrative.js";
import { emptyHeader, type StatementEvents, type StatementHeader, type StatementLine } from "./statement.js";
import { STATEMENT_LIMITS } from "./statement-limits.js";
import { withNarrativeMarks } from "./transfer-texts.js";

// dotAll: a payer's text may carry U+2028, which `.` would not cross without it.
const TAG = /^:(\d\d[A-Z]?):(.*)$/s;
const ENTRY = /^(\d{6})(\d{4})?(R?[CD])([A-Z])?(\d+,\d{0,2})([NFS][A-Z0-9]{3})(.*?)(?:\/\/(.*))?$/s;
const BALANCE = /^([CD])(\d{6})([A-Z]{3})(\d+,\d{0,2})$/;
/** A line that starts a message: its first field, or SWIFT's envelope. */
const MESSAGE_START = /^(?::20:|\{\d:)/;

function dayOf(yymmdd: string, what: string): number {
  const day = `${2000 + Number(yymmdd.slice(0, 2))}-${yymmdd.slice(2, 4)}-${yymmdd.slice(4, 6)}`;
  if (!isRealDay(day)) throw new StatementError(`${what}: "${yymmdd}" is no date`);
  return Date.parse(`${day}T00:00:00${TURKEY_ZONE}`);
}

/**
 * The booking day of a :61: entry: its entry date (MMDD) when given, else its value date; the
 * entry date's year is the value date's, or the one before or after it across a new year.
 */
function bookingDay(valueDate: string, entryDate: string | undefined): number {
  if (entryDate === undefined) return dayOf(valueDate, ":61: a date");
  const yy = Number(valueDate.slice(0, 2));
  const shift = Number(valueDate.slice(2, 4)) - Number(entryDate.slice(0, 2));
  const year = shift > 6 ? yy + 1 : shift < -6 ? yy - 1 : yy;
  return dayOf(`${String(year).padStart(2, "0")}${entryDate}`, ":61: an entry date");
}

function balanceOf(tag: string, value: string): { minor: number; currency: string; day: number } {
  const m = BALANCE.exec(value.trim());
  const amount = m ? minorUnits(m[4] as string) : undefined;
  if (!m || amount === undefined) throw new StatementError(`:${tag}: "${value.trim()}" is not a balance`);
  return {
    minor: m[1] === "D" ? -amount : amount,
    currency: m[3] as string,
    day: dayOf(m[2] as string, `:${tag}: the date`),
  };
}

/** The IBAN in a :25: account field ("TR33…", "BANKTRIS/TR33…", "TR33…/TRY", spaced or not). */
function ibanIn(value: string): string | null {
  const compact = value.replace(/\s+/g, "").toUpperCase();
  const m = /[A-Z]{2}\d{2}[A-Z0-9]{10,30}/.exec(
    compact.split("/").find((p) => /^[A-Z]{2}\d\d/.test(p)) ?? "",
  );
  return m ? m[0] : null;
}

/** A :86: narrative: `?NN` subfields where the bank uses them, else the text as it is. */
function narrative(text: string): { description: string; name: string | null; iban: string | null } {
  const flat = text.replace(/\r?\n/g, "");
  if (!/^\d{3}\?|^\?\d\d/.test(flat)) {
    const description = text.replace(/\s*\r?\n\s*/g, " ").trim();
    return { description, name: senderInNarrative(description), iban: ibanInNarrative(description) };
  }
  const fields = new Map<string, string>();
  for (const part of flat.split("?").slice(1)) {
    const key = part.slice(0, 2);
    fields.set(key, (fields.get(key) ?? "") + part.slice(2));
  }
  const range = (from: number, to: number) =>
    Array.from({ length: to - from + 1 }, (_, i) => fields.get(String(from + i)) ?? "")
      .join("")
      .trim();
  const name = `${fields.get("32") ?? ""}${fields.get("33") ?? ""}`.trim();
  return {
    description: range(20, 29),
    name: name === "" ? null : name,
    iban: fields.get("31")?.trim() || null,
  };
}

/** Whether a line inside a narrative is the tag that may follow it, well-formed, not its text. */
function endsNarrative(tag: string, value: string, ofEntry: boolean): boolean {
  if (!ofEntry) return tag === "20";
  if (tag === "61") return ENTRY.test(value.trim());
  if (tag === "62F" || tag === "62M") return BALANCE.test(value.trim());
  return false;
}

/** SWIFT's transaction types of a bank's charge (CHG charges, COM commission). */
const FEE_TYPES = new Set(["CHG", "COM"]);

/** An entry; SWIFT's type RTI (a returned item) on a credit is a return, CHG or COM on a debit a fee. */
function entryOf(value: string, h: StatementHeader, lineNo: number): StatementLine {
  const [first = "", ...more] = value.split(/\r?\n/);
  const m = ENTRY.exec(first.trim());
  const amount = m ? minorUnits(m[5] as string) : undefined;
  if (!m || amount === undefined)
    throw new StatementError(`line ${lineNo}: :61: "${first.trim()}" is not a statement entry`);
  const mark = m[3] as string;
  // RC / RD reverse a debit / a credit: money comes back in or goes back out.
  const credit = mark === "C" || mark === "RD";
  // Only the bank's own reference (after "//"): the customer's part ("HAVALE", "NONREF") is the
  // same on many entries, and taken for a key it would make later payments duplicates.
  const bankRef = (m[8] ?? "").trim();
  const type = (m[6] as string).slice(1);
  return {
    ...(!credit && FEE_TYPES.has(type) ? { fee: true } : {}),
    ...(credit && type === "RTI" ? { returnInfo: { reason: null } } : {}),
    bookedAt: bookingDay(m[1] as string, m[2]),
    reversal: mark.startsWith("R"),
    dateOnly: true,
    amountMinor: amount,
    direction: credit ? "credit" : "debit",
    currency: h.currency ?? "TRY",
    senderName: null,
    senderIban: null,
    description: more.join(" ").trim(),
    bankRef: bankRef === "" || bankRef === "NONREF" ? null : bankRef,
  };
}

interface Field {
  tag: string;
  value: string;
  /** A :86: that belongs to the entry before it (not the statement's closing information). */
  ofEntry: boolean;
}

export function mt940Reader(events: StatementEvents) {
  let header: StatementHeader | undefined;
  let field: Field | undefined;
  let entry: StatementLine | undefined;
  /** A lone `-` inside a narrative: the message's end, or the narrative's text, told by what follows. */
  let dash: string | undefined;
  let rest = "";
  let lineNo = 0;

  function flushEntry(narr?: string): void {
    if (!entry) return;
    if (narr !== undefined) {
      const n = narrative(narr);
      entry.description = n.description;
      entry.senderName = n.name;
      entry.senderIban = n.iban;
    }
    events.line(withNarrativeMarks(entry));
    entry = undefined;
  }

  function closeField(): void {
    if (!field) return;
    const { tag, value } = field;
    field = undefined;
    if (tag === "86") {
      flushEntry(value);
      return;
    }
    flushEntry();
    if (tag === "20") {
      // A new statement without the "-" that should have ended the one before: that one ends here,
      // so its lines are never counted under the next one's account.
      if (header) events.statement(header);
      header = emptyHeader();
    }
    if (!header) throw new StatementError(`line ${lineNo}: :${tag}: before the statement's :20:`);
    if (tag === "25") {
      if (header.accountIban !== null)
        throw new StatementError(`line ${lineNo}: a second :25: account in one statement`);
      header.accountIban = ibanIn(value);
    } else if (tag === "28C" || tag === "28") header.sequence = value.trim();
    else if (tag === "60F" || tag === "60M") {
      const b = balanceOf(tag, value);
      header.openingMinor = b.minor;
      header.currency = b.currency;
      header.periodFrom = b.day;
    } else if (tag === "62F" || tag === "62M") {
      const b = balanceOf(tag, value);
      header.closingMinor = b.minor;
      header.periodTo = b.day;
    } else if (tag === "61") entry = entryOf(value, header, lineNo);
  }

  function endStatement(): void {
    closeField();
    flushEntry();
    if (header) events.statement(header);
    header = undefined;
  }

  /** Adds a line to the open field, keeping at most STATEMENT_LIMITS.kept of its text. */
  function extend(f: Field, text: string): void {
    if (f.value.length <= STATEMENT_LIMITS.kept) f.value += `\n${text}`;
  }

  function openField(tag: string, value: string): void {
    closeField();
    // A :86: after an entry is the entry's; after the closing balance it is the statement's.
    field = { tag, value, ofEntry: tag === "86" && entry !== undefined };
  }

  function take(raw: string): void {
    lineNo++;
    const line = raw.replace(/\r$/, "");
    if (dash !== undefined) {
      if (line.trim() === "") return;
      const ends = MESSAGE_START.test(line);
      if (ends) endStatement();
      else if (field) extend(field, dash);
      dash = undefined;
      if (!ends && !field) throw new StatementError(`line ${lineNo}: text outside any field`);
    }
    const inNarrative = field?.tag === "86";
    // SWIFT's envelope: blocks {1:…}{2:…}{3:…} before the text block {4: (on its line or the next).
    const block = inNarrative ? -1 : line.indexOf("{4:");
    if (!inNarrative && block < 0 && /^\{\d:/.test(line)) return;
    const body = block < 0 ? line : line.slice(block + 3);
    if (body === "-" || body === "-}" || body.startsWith("-}")) {
      if (inNarrative) dash = body;
      else endStatement();
      return;
    }
    const tag = TAG.exec(body);
    if (tag && field?.tag === "86" && !endsNarrative(tag[1] as string, tag[2] as string, field.ofEntry))
      extend(field, body);
    else if (tag) openField(tag[1] as string, tag[2] as string);
    else if (field) extend(field, body);
    else if (body.trim() !== "") throw new StatementError(`line ${lineNo}: text outside any field`);
  }

  return {
    write(chunk: string): void {
      const lines = (rest + chunk).split("\n");
      rest = lines.pop() ?? "";
      if (rest.length > STATEMENT_LIMITS.mt940Line)
        throw new StatementError(
          `line ${lineNo + lines.length + 1} is longer than ${STATEMENT_LIMITS.mt940Line} characters: not an MT940 line`,
        );
      for (const l of lines) {
        if (l.length > STATEMENT_LIMITS.mt940Line + 1)
          throw new StatementError(
            `line ${lineNo + 1} is longer than ${STATEMENT_LIMITS.mt940Line} characters: not an MT940 line`,
          );
        take(l);
      }
    },
    end(): void {
      if (rest !== "") take(rest);
      dash = undefined;
      endStatement();
      if (lineNo === 0) throw new StatementError("the file is empty");
    },
  };
}
