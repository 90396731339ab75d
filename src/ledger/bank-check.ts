/**
 * The bank checks the ledger (docs/ledger.md, "The bank's check"): at each statement's end, the
 * bank's closing balance against the cash the ledger expects at that bank account, and what makes
 * up any difference. A statement that gives no closing balance is an error, never "balanced".
 */
import { cashIbanOf } from "../domain/ledger.js";
import { formatMinor } from "../domain/money.js";
import { startOfTurkeyDay } from "../domain/turkey-time.js";
import type { Repositories } from "../store/index.js";
import type { BankCheckRow, NewBankCheck } from "../store/ledger/bank-checks.js";

const DAY_MS = 86_400_000;

/**
 * The moment a statement's closing balance speaks for: its period's end (a day without a time is
 * the whole day), else its last booking, else now; never later than now.
 */
export function statementEnd(periodTo: number | null, lastBooked: number | null, now: number): number {
  const given = periodTo ?? lastBooked;
  if (given === null) return now;
  const end = given === startOfTurkeyDay(given) ? given + DAY_MS - 1 : given;
  return Math.min(end, now);
}

/** What a statement says and where it came from, for its check. */
export interface CheckedStatement {
  accountId: number;
  accountIds: readonly number[];
  iban: string;
  importId: number | null;
  source: "file" | "feed";
  closing: number | null;
  end: number;
}

/**
 * Checks one statement against the ledger and keeps the check: the expected cash at its end, the
 * difference, and the sums of the lines and postings that make it up. Null when the account holds
 * no IBAN the ledger can name (its money waits in suspense: there is no cash account to check).
 */
export async function checkStatement(
  repos: Pick<Repositories, "bankChecks">,
  s: CheckedStatement,
  now: number,
): Promise<BankCheckRow | null> {
  const iban = cashIbanOf(s.iban);
  if (iban === null) return null;
  const expected = await repos.bankChecks.expectedAt(iban, s.accountIds, s.end);
  const explained = await repos.bankChecks.explain(iban, s.accountIds, s.end);
  const check: NewBankCheck = {
    iban,
    accountId: s.accountId,
    importId: s.importId,
    source: s.source,
    at: s.end,
    bankClosing: s.closing,
    expected,
    difference: s.closing === null ? null : s.closing - expected,
    problem: s.closing === null ? "no_closing_balance" : null,
    unpostedSum: explained.unposted.sum,
    unbankedSum: explained.unbanked.sum,
    createdAt: now,
  };
  return repos.bankChecks.record(check);
}

/** A check as operators read it: figures in lira, the statement's end as a time. */
export interface LedgerCheckView {
  at: string;
  bank_closing: string | null;
  expected: string;
  /** The bank's closing less the ledger's expected cash; null when the statement gave no closing. */
  difference: string | null;
  /** Why the statement could not be checked (`no_closing_balance`); null when it was. */
  problem: string | null;
  /** Lines the bank booked whose money no posting holds yet (credits positive, debits negative). */
  unposted: string;
  /** Cash postings no line of the bank has shown by then. */
  unbanked: string;
}

export function ledgerCheckView(c: BankCheckRow): LedgerCheckView {
  return {
    at: new Date(c.at).toISOString(),
    bank_closing: c.bankClosing === null ? null : formatMinor(c.bankClosing),
    expected: formatMinor(c.expected),
    difference: c.difference === null ? null : formatMinor(c.difference),
    problem: c.problem,
    unposted: formatMinor(c.unpostedSum),
    unbanked: formatMinor(c.unbankedSum),
  };
}
