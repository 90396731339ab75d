import sax from "sax";
import { TURKEY_ZONE } from "../domain/turkey-time.js";
import { minorUnits, StatementError } from "./amounts.js";
import type { StatementEvents, StatementHeader, StatementLine } from "./statement.js";

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
 * else `AddtlNtryInf`).
 */

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
  extra?: string;
}

interface BalanceDraft {
  type?: string;
  amount?: string;
  direction?: string;
  currency?: string;
}

const EARLIEST = Date.UTC(2000, 0, 1);
const LATEST = Date.UTC(2100, 0, 1);

/** A booking date (no time) as the start of that day in Türkiye; a time as given (or Türkiye's). */
function bookingTime(text: string, dateOnly: boolean): number {
  const at = dateOnly
    ? Date.parse(`${text}T00:00:00${TURKEY_ZONE}`)
    : Date.parse(/[Zz]|[+-]\d\d:?\d\d$/.test(text) ? text : `${text}${TURKEY_ZONE}`);
  if (Number.isNaN(at) || at < EARLIEST || at > LATEST)
    throw new StatementError(`an entry's booking date "${text}" is not a date of this century`);
  return at;
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

export function camtReader(events: StatementEvents) {
  const parser = sax.parser(true, { trim: false, normalize: false, xmlns: false, position: true });
  const path: string[] = [];
  let text = "";
  let header: StatementHeader | undefined;
  let entry: EntryDraft | undefined;
  let balance: BalanceDraft | undefined;
  let failure: Error | undefined;
  let sawDocument = false;

  const local = (name: string) => name.slice(name.indexOf(":") + 1);
  const under = (...names: string[]) => names.every((n) => path.includes(n));

  parser.ondoctype = () => {
    throw new StatementError("the file declares a DTD, which a bank statement never needs");
  };
  parser.onopentag = (tag) => {
    const name = local(tag.name);
    path.push(name);
    text = "";
    if (name === "Document") sawDocument = true;
    if (name === "Stmt") {
      if (header) throw new StatementError("a statement (Stmt) inside another");
      header = { accountIban: null, sequence: null, openingMinor: null, closingMinor: null, currency: null };
    }
    if (name === "Ntry") {
      if (!header) throw new StatementError("an entry (Ntry) outside any statement (Stmt)");
      if (entry) throw new StatementError("an entry (Ntry) inside another");
      entry = { dateOnly: true, ustrd: [] };
    }
    if (name === "Bal") balance = {};
    const ccy = (tag.attributes as Record<string, string>).Ccy;
    if (name === "Amt" && ccy !== undefined) {
      if (entry && path.at(-2) === "Ntry") entry.currency = ccy;
      if (balance) balance.currency = ccy;
    }
  };
  parser.ontext = (t) => {
    text += t;
  };
  parser.oncdata = (t) => {
    text += t;
  };
  parser.onclosetag = () => {
    const name = path.at(-1) as string;
    const value = text.trim();
    closeElement(name, value);
    path.pop();
    text = "";
  };

  function closeElement(name: string, value: string): void {
    if (balance) {
      if (name === "Cd" && under("Bal", "Tp")) balance.type = value;
      else if (name === "Amt" && under("Bal")) balance.amount = value;
      else if (name === "CdtDbtInd" && under("Bal")) balance.direction = value;
      else if (name === "Bal") closeBalance(balance);
    }
    if (entry) closeEntryPart(entry, name, value);
    else if (header && name === "IBAN" && under("Stmt", "Acct", "Id")) {
      if (header.accountIban !== null) throw new StatementError("a statement naming two accounts");
      header.accountIban = value;
    } else if (header && name === "ElctrncSeqNb" && under("Stmt")) header.sequence = value;
    else if (header && name === "Stmt") {
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

  function closeEntryPart(e: EntryDraft, name: string, value: string): void {
    const inTx = path.includes("TxDtls");
    // The entry's own amount and direction only: charges, interest and batches carry theirs too.
    const own = path.at(-2) === "Ntry";
    if (name === "Amt" && own) e.amount = value;
    else if (name === "CdtDbtInd" && own) e.direction = value;
    else if (name === "RvslInd" && own) e.reversal = value.toLowerCase() === "true";
    else if (name === "Dt" && under("BookgDt")) e.booked ??= value;
    else if (name === "DtTm" && under("BookgDt")) {
      e.booked = value;
      e.dateOnly = false;
    } else if (name === "AcctSvcrRef") {
      if (inTx) e.txRef ??= value;
      else e.ref = value;
    } else if (name === "Nm" && under("RltdPties", "Dbtr") && !path.includes("DbtrAgt")) e.name ??= value;
    else if (name === "IBAN" && under("RltdPties", "DbtrAcct")) e.iban ??= value;
    else if (name === "Ustrd") e.ustrd.push(value);
    else if (name === "AddtlNtryInf") e.extra = value;
    else if (name === "Ntry") {
      events.line(toLine(e));
      entry = undefined;
    }
  }

  function toLine(e: EntryDraft): StatementLine {
    if (e.direction !== "CRDT" && e.direction !== "DBIT")
      throw new StatementError(
        `an entry's credit/debit indicator "${e.direction ?? ""}" is neither CRDT nor DBIT`,
      );
    if (e.booked === undefined) throw new StatementError("an entry has no booking date");
    const amountMinor = Math.abs(signed(e.amount, "CRDT", "an entry"));
    return {
      bookedAt: bookingTime(e.booked, e.dateOnly),
      dateOnly: e.dateOnly,
      amountMinor,
      direction: e.direction === "CRDT" ? "credit" : "debit",
      currency: e.currency ?? header?.currency ?? "TRY",
      senderName: e.name ?? null,
      senderIban: e.iban ?? null,
      description: e.ustrd.length > 0 ? e.ustrd.join(" ") : (e.extra ?? ""),
      bankRef: e.ref ?? e.txRef ?? null,
      reversal: e.reversal === true,
    };
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
