import { TURKEY_ZONE } from "../domain/turkey-time.js";
import { minorUnits, StatementError } from "./amounts.js";
import { ibanInNarrative, senderInNarrative } from "./narrative.js";
import type { StatementEvents, StatementHeader, StatementLine } from "./statement.js";

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
 *   :86:  the entry's narrative: Turkish banks write free text ("FAST GELEN ... AHMET YILMAZ ...");
 *         some use `?NN` subfields (?20–?29 the description, ?32–?33 the name, ?31 the IBAN)
 *   :62F: / :62M: the closing balance
 * An entry's date is its booking day, without a time.
 */

const TAG = /^:(\d\d[A-Z]?):(.*)$/;
const ENTRY = /^(\d{6})(\d{4})?(R?[CD])([A-Z])?(\d+,\d{0,2})([NFS][A-Z0-9]{3})(.*?)(?:\/\/(.*))?$/;
const BALANCE = /^([CD])(\d{6})([A-Z]{3})(\d+,\d{0,2})$/;

function dayOf(yymmdd: string): number {
  const year = 2000 + Number(yymmdd.slice(0, 2));
  const at = Date.parse(`${year}-${yymmdd.slice(2, 4)}-${yymmdd.slice(4, 6)}T00:00:00${TURKEY_ZONE}`);
  if (Number.isNaN(at)) throw new StatementError(`:61: a date "${yymmdd}" that is no date`);
  return at;
}

/**
 * The booking day of a :61: entry: its entry date (MMDD) when given, else its value date; the
 * entry date's year is the value date's, or the one before or after it across a new year.
 */
function bookingDay(valueDate: string, entryDate: string | undefined): number {
  if (entryDate === undefined) return dayOf(valueDate);
  const yy = Number(valueDate.slice(0, 2));
  const shift = Number(valueDate.slice(2, 4)) - Number(entryDate.slice(0, 2));
  const year = shift > 6 ? yy + 1 : shift < -6 ? yy - 1 : yy;
  return dayOf(`${String(year).padStart(2, "0")}${entryDate}`);
}

function balanceOf(tag: string, value: string): { minor: number; currency: string } {
  const m = BALANCE.exec(value.trim());
  const amount = m ? minorUnits(m[4] as string) : undefined;
  if (!m || amount === undefined) throw new StatementError(`:${tag}: "${value.trim()}" is not a balance`);
  return { minor: m[1] === "D" ? -amount : amount, currency: m[3] as string };
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

export function mt940Reader(events: StatementEvents) {
  let header: StatementHeader | undefined;
  let field: { tag: string; value: string } | undefined;
  let entry: { line: StatementLine; more: string } | undefined;
  let rest = "";
  let lineNo = 0;

  function flushEntry(narr?: string): void {
    if (!entry) return;
    if (narr !== undefined) {
      const n = narrative(narr);
      entry.line.description = n.description;
      entry.line.senderName = n.name;
      entry.line.senderIban = n.iban;
    }
    events.line(entry.line);
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
      header = { accountIban: null, sequence: null, openingMinor: null, closingMinor: null, currency: null };
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
    } else if (tag === "62F" || tag === "62M") header.closingMinor = balanceOf(tag, value).minor;
    else if (tag === "61") entry = { line: entryOf(value, header), more: "" };
  }

  function entryOf(value: string, h: StatementHeader): StatementLine {
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
    return {
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

  function endStatement(): void {
    closeField();
    flushEntry();
    if (header) events.statement(header);
    header = undefined;
  }

  function take(raw: string): void {
    lineNo++;
    const line = raw.replace(/\r$/, "");
    // SWIFT's envelope: blocks {1:…}{2:…}{3:…} before the text block {4: (on its line or the next).
    const block = line.indexOf("{4:");
    if (block < 0 && /^\{\d:/.test(line)) return;
    const body = block < 0 ? line : line.slice(block + 3);
    if (body === "-" || body === "-}" || body.startsWith("-}")) {
      endStatement();
      return;
    }
    const tag = TAG.exec(body);
    if (tag) {
      closeField();
      field = { tag: tag[1] as string, value: tag[2] as string };
    } else if (field) field.value += `\n${body}`;
    else if (body.trim() !== "") throw new StatementError(`line ${lineNo}: text outside any field`);
  }

  return {
    write(chunk: string): void {
      const lines = (rest + chunk).split("\n");
      rest = lines.pop() ?? "";
      for (const l of lines) take(l);
    },
    end(): void {
      if (rest !== "") take(rest);
      endStatement();
      if (lineNo === 0) throw new StatementError("the file is empty");
    },
  };
}
