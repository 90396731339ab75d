/**
 * An ISO 20022 camt.053 bank-to-customer statement (any version: elements are matched by their
 * local names, which .001.02 to .001.13 share), read as a stream: a 100,000-entry file is 60–90 MB
 * and is never held whole. No DTD and no entity but XML's five: a file declaring either is refused,
 * which shuts out entity expansion ("billion laughs") and external entities alike.
 *
 * What is read, per statement (`Stmt`): the account's IBAN (`Acct/Id/IBAN`), the sequence number
 * (`ElctrncSeqNb`), the opening and closing booked balances (`Bal` of type OPBD/PRCD and CLBD);
 * per entry (`Ntry`): amount and currency, credit or debit, booking date or time, the bank's
 * reference (`AcctSvcrRef`, of the entry or its transaction), the debtor's name and IBAN
 * (`RltdPties/Dbtr[/Pty]/Nm`, `RltdPties/DbtrAcct/Id/IBAN`) and the description (`RmtInf/Ustrd`,
 * else `AddtlNtryInf`), and the statement's period (`FrToDt`).
 *
 * Nothing grows with the file's shape: elements nest at most STATEMENT_LIMITS.depth deep, an
 * element's text is kept up to STATEMENT_LIMITS.kept characters (its length past that only counts),
 * and an entry's descriptions up to what a line keeps (statement-limits.ts).
 */
import sax from "sax";
import { TURKEY_ZONE } from "../domain/turkey-time.js";
import { minorUnits, StatementError } from "./amounts.js";
import { isRealDay } from "./booking-dates.js";
import { emptyHeader, type StatementEvents, type StatementHeader, type StatementLine } from "./statement.js";
import { STATEMENT_LIMITS } from "./statement-limits.js";
import { endToEndIdOf, returnReasonOf, withNarrativeMarks } from "./transfer-texts.js";

interface EntryDraft {
  amount?: string;
  currency?: string;
  direction?: string;
  booked?: string;
  dateOnly: boolean;
  reversal?: boolean;
  ref?: string;
  txRef?: string;
  name?: string;
  iban?: string;
  ustrd: string[];
  ustrdChars: number;
  extra?: string;
  /** Its transfers (TxDtls): more than one is a batch booked as one entry. */
  transfers: number;
  ids: string[];
  creditorName?: string;
  creditorIban?: string;
  returned: boolean;
  returnCode?: string;
  returnText?: string;
  returnFamily: boolean;
  feeFamily: boolean;
}

interface BalanceDraft {
  type?: string;
  amount?: string;
  direction?: string;
  currency?: string;
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME =
  /^(\d{4}-\d{2}-\d{2})T([01]\d|2[0-3]):[0-5]\d(?::[0-5]\d(?:\.\d{1,9})?)?(Z|[+-](?:[01]\d|2[0-3]):?[0-5]\d)?$/;

/**
 * An ISO date (no time) as the start of that day in Türkiye; a date and time as given (or in
 * Türkiye's zone when it names none). Only days the calendar has: 2026-02-30 is no date.
 */
export function isoTime(text: string, dateOnly: boolean, what: string): number {
  const time = DATE_TIME.exec(text);
  const day = dateOnly ? (DATE.test(text) ? text : undefined) : time?.[1];
  if (day === undefined || !isRealDay(day)) throw new StatementError(`${what} "${text}" is not a date`);
  const zoned =
    time?.[3] === undefined ? `${text}${TURKEY_ZONE}` : text.replace(/([+-]\d\d)(\d\d)$/, "$1:$2");
  return Date.parse(dateOnly ? `${text}T00:00:00${TURKEY_ZONE}` : zoned);
}

/** xs:boolean: true or 1, false or 0. */
function xsBoolean(text: string, what: string): boolean {
  if (text === "true" || text === "1") return true;
  if (text === "false" || text === "0") return false;
  throw new StatementError(`${what} "${text}" is neither true nor false`);
}

function signed(amount: string | undefined, direction: string | undefined, what: string): number {
  const minor = amount === undefined ? undefined : minorUnits(amount);
  if (minor === undefined)
    throw new StatementError(`${what}: the amount "${amount ?? ""}" is not a decimal amount`);
  return direction === "DBIT" ? -minor : minor;
}

function asStatementError(err: unknown): StatementError {
  return err instanceof StatementError
    ? err
    : new StatementError(`not well-formed XML: ${(err as Error).message.split("\n")[0]}`);
}

/** Takes an element of an entry as it closes; true when it is the entry itself. */
function closeEntryPart(e: EntryDraft, path: readonly string[], name: string, value: string): boolean {
  const under = (...names: string[]) => names.every((n) => path.includes(n));
  const inTx = path.includes("TxDtls");
  // The entry's own amount and direction only: charges, interest and batches carry theirs too.
  const own = path.at(-2) === "Ntry";
  if (name === "Amt" && own) {
    if (e.amount !== undefined) throw new StatementError("an entry with two amounts (Amt)");
    e.amount = value;
  } else if (name === "CdtDbtInd" && own) {
    if (e.direction !== undefined) throw new StatementError("an entry with two credit/debit indicators");
    e.direction = value;
  } else if (name === "RvslInd" && own) e.reversal = xsBoolean(value, "an entry's reversal indicator");
  else if (name === "Dt" && under("BookgDt")) e.booked ??= value;
  else if (name === "DtTm" && under("BookgDt")) {
    e.booked = value;
    e.dateOnly = false;
  } else if (name === "AcctSvcrRef") {
    if (inTx) e.txRef ??= value;
    else e.ref = value;
  } else if (name === "Nm" && under("RltdPties", "Dbtr") && !path.includes("DbtrAgt")) e.name ??= value;
  else if (name === "IBAN" && under("RltdPties", "DbtrAcct")) e.iban ??= value;
  // Descriptions past what a line keeps are not gathered (statement-file.ts cuts the joined text).
  else if (name === "Ustrd") {
    if (e.ustrdChars <= STATEMENT_LIMITS.description) e.ustrd.push(value);
    e.ustrdChars += value.length + 1;
  } else if (name === "AddtlNtryInf") e.extra = value;
  else closeTransferPart(e, path, name, value);
  return name === "Ntry";
}

/**
 * Return sub-families of ISO's bank transaction codes: RRTN (a payment's return), RPCR (a payment
 * sent back on a cancellation request). Proprietary codes differ per bank and are not read.
 */
const RETURN_SUBFAMILIES = new Set(["RRTN", "RPCR"]);
/** Charges, fees and commissions: the family CHRG, or those sub-families under any family. */
const FEE_SUBFAMILIES = new Set(["CHRG", "FEES", "COMM"]);

/** Takes what an entry says of its transfers: payee, EndToEndIds, return, bank transaction code. */
function closeTransferPart(e: EntryDraft, path: readonly string[], name: string, value: string): void {
  const under = (...names: string[]) => names.every((n) => path.includes(n));
  if (name === "TxDtls") e.transfers++;
  else if (name === "EndToEndId" && under("TxDtls", "Refs")) {
    const id = endToEndIdOf(value);
    if (id === null) return;
    if (e.ids.length >= STATEMENT_LIMITS.transfers)
      throw new StatementError(`an entry of more than ${STATEMENT_LIMITS.transfers} transfers`);
    e.ids.push(id);
  } else if (name === "Nm" && under("RltdPties", "Cdtr")) e.creditorName ??= value;
  else if (name === "IBAN" && under("RltdPties", "CdtrAcct")) e.creditorIban ??= value;
  else if (name === "RtrInf") e.returned = true;
  else if ((name === "Cd" || name === "Prtry") && under("RtrInf", "Rsn")) e.returnCode ??= value;
  else if (name === "AddtlInf" && under("RtrInf")) e.returnText ??= value;
  else if (name === "Cd" && path.at(-2) === "Fmly" && under("BkTxCd")) {
    if (value === "CHRG") e.feeFamily = true;
  } else if (name === "SubFmlyCd" && under("BkTxCd")) {
    if (RETURN_SUBFAMILIES.has(value)) e.returnFamily = true;
    if (FEE_SUBFAMILIES.has(value)) e.feeFamily = true;
  }
}

/**
 * A debit's payee and ids, a credit's return, a debit's charge: only what the entry says. A batch
 * booked as one debit names no one payee; its transfers' ids are listed instead.
 */
function transferOf(e: EntryDraft, debit: boolean): Partial<StatementLine> {
  const single = e.transfers <= 1;
  const parts: Partial<StatementLine> = {};
  if (single && e.ids[0] !== undefined) parts.endToEndId = e.ids[0];
  if (!single && e.ids.length > 0) parts.endToEndIds = e.ids;
  if (debit) {
    parts.senderName = single ? (e.creditorName ?? null) : null;
    parts.senderIban = single ? (e.creditorIban ?? null) : null;
    if (e.feeFamily) parts.fee = true;
  } else if (e.returned || e.returnFamily) {
    const words = [e.returnCode, e.returnText].filter((w) => w !== undefined && w !== "").join(" ");
    parts.returnInfo = { reason: returnReasonOf(words === "" ? null : words) };
  }
  return parts;
}

function toLine(e: EntryDraft, statementCurrency: string | null): StatementLine {
  if (e.direction !== "CRDT" && e.direction !== "DBIT")
    throw new StatementError(
      `an entry's credit/debit indicator "${e.direction ?? ""}" is neither CRDT nor DBIT`,
    );
  if (e.booked === undefined) throw new StatementError("an entry has no booking date");
  const amountMinor = Math.abs(signed(e.amount, "CRDT", "an entry"));
  return withNarrativeMarks({
    bookedAt: isoTime(e.booked, e.dateOnly, "an entry's booking date"),
    dateOnly: e.dateOnly,
    amountMinor,
    direction: e.direction === "CRDT" ? "credit" : "debit",
    currency: e.currency ?? statementCurrency ?? "TRY",
    senderName: e.name ?? null,
    senderIban: e.iban ?? null,
    description: e.ustrd.length > 0 ? e.ustrd.join(" ") : (e.extra ?? ""),
    bankRef: e.ref ?? e.txRef ?? null,
    reversal: e.reversal === true,
    ...transferOf(e, e.direction === "DBIT"),
  });
}

export function camtReader(events: StatementEvents) {
  const parser = sax.parser(true, { trim: false, normalize: false, xmlns: false, position: true });
  const path: string[] = [];
  let text = "";
  let header: StatementHeader | undefined;
  let entry: EntryDraft | undefined;
  let balance: BalanceDraft | undefined;
  let failure: Error | undefined;
  let sawDocument = false;

  let rootClosed = false;
  let elements = 0;
  const local = (name: string) => name.slice(name.indexOf(":") + 1);
  const under = (...names: string[]) => names.every((n) => path.includes(n));

  // Attributes are kept on the tag until it opens: a tag with millions of them would be held whole.
  let attributes = 0;
  parser.onopentagstart = () => {
    attributes = 0;
  };
  parser.onattribute = () => {
    if (++attributes > STATEMENT_LIMITS.attributes)
      throw new StatementError(`an element with more than ${STATEMENT_LIMITS.attributes} attributes`);
  };
  parser.ondoctype = () => {
    throw new StatementError("the file declares a DTD, which a bank statement never needs");
  };
  parser.onopentag = (tag) => {
    const name = local(tag.name);
    if (rootClosed) throw new StatementError("a second root element: a file holds one Document");
    if (++elements > STATEMENT_LIMITS.elements)
      throw new StatementError(`more than ${STATEMENT_LIMITS.elements} XML elements in one file`);
    if (path.length >= STATEMENT_LIMITS.depth)
      throw new StatementError(`elements nested deeper than ${STATEMENT_LIMITS.depth}: not a statement`);
    path.push(name);
    text = "";
    if (name === "Document") sawDocument = true;
    if (name === "Stmt") {
      if (header) throw new StatementError("a statement (Stmt) inside another");
      header = emptyHeader();
    }
    if (name === "Ntry") {
      if (!header) throw new StatementError("an entry (Ntry) outside any statement (Stmt)");
      if (entry) throw new StatementError("an entry (Ntry) inside another");
      entry = {
        dateOnly: true,
        ustrd: [],
        ustrdChars: 0,
        transfers: 0,
        ids: [],
        returned: false,
        returnFamily: false,
        feeFamily: false,
      };
    }
    if (name === "Bal") balance = {};
    const ccy = (tag.attributes as Record<string, string>).Ccy;
    if (name === "Amt" && ccy !== undefined) {
      if (entry && path.at(-2) === "Ntry") entry.currency = ccy;
      if (balance) balance.currency = ccy;
    }
  };
  // Up to `kept` characters of an element's text: past it, the value is too long whatever follows.
  const keep = (t: string) => {
    if (text.length <= STATEMENT_LIMITS.kept) text += t.slice(0, STATEMENT_LIMITS.kept + 1 - text.length);
  };
  parser.ontext = keep;
  parser.oncdata = keep;
  parser.onclosetag = () => {
    const name = path.at(-1) as string;
    const value = text.trim();
    closeElement(name, value);
    path.pop();
    if (path.length === 0) rootClosed = true;
    text = "";
  };

  function closeElement(name: string, value: string): void {
    if (balance) {
      if (name === "Cd" && under("Bal", "Tp")) balance.type = value;
      else if (name === "Amt" && under("Bal")) balance.amount = value;
      else if (name === "CdtDbtInd" && under("Bal")) balance.direction = value;
      else if (name === "Bal") closeBalance(balance);
    }
    if (entry) {
      if (closeEntryPart(entry, path, name, value)) {
        events.line(toLine(entry, header?.currency ?? null));
        entry = undefined;
      }
    } else if (header && name === "IBAN" && under("Stmt", "Acct", "Id")) {
      if (header.accountIban !== null) throw new StatementError("a statement naming two accounts");
      header.accountIban = value;
    } else if (header && name === "ElctrncSeqNb" && under("Stmt")) header.sequence = value;
    else if (header && under("Stmt", "FrToDt") && (name === "FrDtTm" || name === "ToDtTm")) {
      const at = isoTime(value, false, `the statement's period (${name})`);
      if (name === "FrDtTm") header.periodFrom = at;
      else header.periodTo = at;
    } else if (header && name === "Stmt") {
      events.statement(header);
      header = undefined;
    }
  }

  function closeBalance(b: BalanceDraft): void {
    if (header && (b.type === "OPBD" || b.type === "PRCD"))
      header.openingMinor = signed(b.amount, b.direction, "the opening balance");
    if (header && b.type === "CLBD")
      header.closingMinor = signed(b.amount, b.direction, "the closing balance");
    if (header && b.currency) header.currency = b.currency;
    balance = undefined;
  }

  parser.onerror = (err) => {
    failure ??= asStatementError(err);
  };
  /** Runs a step of the parser, keeping its first fault and throwing it. */
  const step = (work: () => void) => {
    if (!failure)
      try {
        work();
      } catch (err) {
        failure ??= asStatementError(err);
      }
    if (failure) throw failure;
  };

  return {
    /** Feeds the next piece of the file's text. Throws StatementError at the first fault. */
    write: (chunk: string) => step(() => parser.write(chunk)),
    end(): void {
      step(() => parser.close());
      if (!sawDocument) throw new StatementError("no camt.053 Document element");
    },
  };
}
