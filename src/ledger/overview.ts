/**
 * The console's "Bakiyeler" (docs/console.md): every live firm's balance at once, every bank
 * account's last check against the ledger, and a firm's days over a range. The figures are the
 * ledger's own (store/ledger/overview.ts, accounts.ts, service.ts); this shapes them for a screen
 * that shows them side by side. A figure that is missing is null and says why (`state`), never a
 * zero that would read as balanced.
 */
import { cashIbanOf } from "../domain/ledger.js";
import { formatMinor } from "../domain/money.js";
import { type Outcome, refusal } from "../domain/refusal.js";
import { turkeyDayOf, turkeyDayStart } from "../domain/turkey-time.js";
import type { Repositories } from "../store/index.js";
import type { AccountRow } from "../store/routing/accounts.js";
import type { DayTotals } from "./day-report.js";
import type { LedgerService } from "./service.js";

/** One firm's line: what the service owes it, what is on its way to the bank, and what a payout may still take. */
export interface FirmBalanceLine {
  firm: number;
  name: string;
  /** A closed firm may still be owed money: it stays on the list. */
  active: boolean;
  balance: string;
  in_transit: string;
  /** The balance less `held`: what a new payout may still take. */
  available: string;
  /** What its payouts in live batches not yet sent hold back. */
  held: string;
}

export interface BalancesView {
  /** Live firms by name (test firms post nothing). */
  firms: FirmBalanceLine[];
  /** The sums over every firm listed. */
  totals: { balance: string; in_transit: string; available: string };
  at: string;
}

/**
 * How a bank account stands against the ledger: its last check agreed (`balanced`), found a
 * `difference`, could not be made for want of the statement's closing balance (`no_closing_balance`);
 * no statement was checked yet (`not_checked`); or the account holds no IBAN the ledger can name
 * (`no_iban`: its money waits in suspense, there is no cash to check).
 */
export type BankAccountState = "balanced" | "difference" | "no_closing_balance" | "not_checked" | "no_iban";

/** The payment accounts sharing one IBAN (one cash account in the ledger) and their last check. */
export interface BankAccountLine {
  iban: string;
  /** The payment accounts on this IBAN; the first one's id opens the check's explanation. */
  accounts: { id: number; bank_name: string; active: boolean }[];
  /** The cash the ledger expects at the bank now; null for `no_iban`. */
  expected: string | null;
  /** The last checked statement's closing balance; null when none was checked or it gave none. */
  last_statement: string | null;
  /** That statement's end: the moment its closing speaks for. */
  statement_end: string | null;
  /** Its closing less the cash the ledger expected then; null without a closing. */
  difference: string | null;
  state: BankAccountState;
}

/** A firm's days over a range: the range as read (the default filled in) and each day's totals. */
export interface FirmDaysView {
  firm: number;
  name: string;
  from: string;
  to: string;
  days: DayTotals[];
}

/** The range a firm's days default to: the last seven Türkiye days, today included. */
export const DEFAULT_DAYS = 7;
const DAY_MS = 86_400_000;

type Deps = {
  repos: Pick<Repositories, "ledgerOverview" | "accounts" | "firms">;
  ledger: Pick<LedgerService, "accountBalance" | "firmDays">;
  now(): number;
};

export function createLedgerOverview(deps: Deps) {
  return {
    firms: () => firmBalances(deps),
    bankAccounts: () => bankAccounts(deps),
    firmDays: (firmId: number, from?: string, to?: string) => firmDays(deps, firmId, from, to),
    /** The range `firmDays` reads when `from` or `to` is not given. */
    daysRange: (from?: string, to?: string) => daysRange(deps.now(), from, to),
  };
}

export type LedgerOverview = ReturnType<typeof createLedgerOverview>;

const byName = new Intl.Collator("tr", { sensitivity: "base", numeric: true });

async function firmBalances(deps: Deps): Promise<BalancesView> {
  const at = deps.now();
  const rows = await deps.repos.ledgerOverview.firmBalances();
  rows.sort((a, b) => byName.compare(a.name, b.name) || a.firmId - b.firmId);
  const totals = { balance: 0, inTransit: 0, available: 0 };
  const firms = rows.map((r): FirmBalanceLine => {
    const available = r.balance - r.held;
    totals.balance += r.balance;
    totals.inTransit += r.inTransit;
    totals.available += available;
    return {
      firm: r.firmId,
      name: r.name,
      active: r.active,
      balance: formatMinor(r.balance),
      in_transit: formatMinor(r.inTransit),
      available: formatMinor(available),
      held: formatMinor(r.held),
    };
  });
  return {
    firms,
    totals: {
      balance: formatMinor(totals.balance),
      in_transit: formatMinor(totals.inTransit),
      available: formatMinor(totals.available),
    },
    at: new Date(at).toISOString(),
  };
}

/**
 * The company's accounts (the test firms' sandbox account has no cash), one line per IBAN as the
 * ledger's cash accounts are, each with its last check (ledger/accounts.ts `accountBalance`, one
 * IBAN at a time: a company has a handful).
 */
async function bankAccounts(deps: Deps): Promise<BankAccountLine[]> {
  const groups = new Map<string, AccountRow[]>();
  for (const a of await deps.repos.accounts.list()) {
    if (a.sandbox === 1) continue;
    groups.set(a.iban, [...(groups.get(a.iban) ?? []), a]);
  }
  const lines = await Promise.all(
    [...groups.values()].map(async (accounts): Promise<BankAccountLine | undefined> => {
      const first = accounts[0];
      if (!first) return undefined;
      const shown = accounts.map((a) => ({ id: a.id, bank_name: a.bank_name, active: a.active === 1 }));
      const iban = cashIbanOf(first.iban);
      const none = { expected: null, last_statement: null, statement_end: null, difference: null };
      if (iban === null) return { iban: first.iban, accounts: shown, ...none, state: "no_iban" };
      const read = await deps.ledger.accountBalance(first.id, undefined);
      // Gone meanwhile (an account is never deleted today): left out rather than shown as balanced.
      if (!read.ok) return undefined;
      const { expected, last_statement, difference, check } = read.value;
      return {
        iban,
        accounts: shown,
        expected,
        last_statement,
        statement_end: check?.at ?? null,
        difference,
        state: stateOf(check, difference),
      };
    }),
  );
  return lines
    .filter((l) => l !== undefined)
    .sort((a, b) => (a.accounts[0]?.id ?? 0) - (b.accounts[0]?.id ?? 0));
}

function stateOf(check: { problem: string | null } | null, difference: string | null): BankAccountState {
  if (check === null) return "not_checked";
  if (check.problem === "no_closing_balance" || difference === null) return "no_closing_balance";
  return /^0(\.0+)?$/.test(difference) ? "balanced" : "difference";
}

/** YYYY-MM-DD `n` days before `day`. */
const daysBefore = (day: string, n: number) => turkeyDayOf(turkeyDayStart(day) - n * DAY_MS);

function daysRange(now: number, from?: string, to?: string): { from: string; to: string } {
  const last = to ?? turkeyDayOf(now);
  const start = turkeyDayStart(last);
  // A `to` that is no day is left for the ledger's refusal to name.
  return { from: from ?? (Number.isNaN(start) ? last : daysBefore(last, DEFAULT_DAYS - 1)), to: last };
}

async function firmDays(
  deps: Deps,
  firmId: number,
  from?: string,
  to?: string,
): Promise<Outcome<FirmDaysView>> {
  const firm = await deps.repos.firms.get(firmId);
  if (!firm) return refusal("firm_not_found", "firm not found");
  const range = daysRange(deps.now(), from, to);
  const days = await deps.ledger.firmDays(firmId, range.from, range.to);
  if (!days.ok) return days;
  return { ok: true, value: { firm: firmId, name: firm.name, ...range, days: days.value } };
}
