/**
 * The company's bank accounts as the ledger sees them (docs/ledger.md, "The bank's check"): the
 * cash it expects at each, the last statement's closing balance and the difference found then,
 * and what makes the difference up. Payment accounts sharing an IBAN share one cash account.
 */
import { cashIbanOf } from "../domain/ledger.js";
import { formatMinor } from "../domain/money.js";
import { notFound, type Outcome, refusal } from "../domain/refusal.js";
import type { Repositories } from "../store/index.js";
import type { CheckExplanation } from "../store/ledger/bank-checks.js";
import { type LedgerCheckView, ledgerCheckView } from "./bank-check.js";

export interface AccountBalanceView {
  account: number;
  /** The cash the ledger expects at the bank now (or at `at`). */
  expected: string;
  /** The closing balance of the last statement checked (ending at or before `at`); null: none, or it gave none. */
  last_statement: string | null;
  /** That statement's closing less the ledger's cash expected at its end; null without one. */
  difference: string | null;
  /** That statement's check in full; null when no statement of the account was checked. */
  check: LedgerCheckView | null;
  at?: string;
}

/** A check with what makes its difference up: the lines and postings, the first of each listed. */
export interface AccountCheckView extends LedgerCheckView {
  account: number;
  unposted_lines: { count: number; lines: UnpostedLineView[] };
  unbanked_postings: { count: number; postings: UnbankedPostingView[] };
  /** The difference less what the lines and postings above explain (an opening balance not set, older gaps). */
  unexplained: string | null;
}

interface UnpostedLineView {
  line_id: number;
  booked_at: string;
  amount: string;
  state: string;
  payout_outcome: string | null;
  description: string;
}

interface UnbankedPostingView {
  posting_id: number;
  key: string;
  at: string;
  amount: string;
}

type Deps = { repos: Pick<Repositories, "accounts" | "bankChecks" | "statements">; now(): number };

/** The account's cash: its IBAN as the ledger names it and the accounts sharing it, or why there is none. */
async function cashOf(deps: Deps, accountId: number): Promise<Outcome<{ ids: number[]; iban: string }>> {
  const account = await deps.repos.statements.accountsWithIbanOf(accountId);
  if (!account) return notFound("account");
  const iban = cashIbanOf(account.iban);
  if (iban === null)
    return refusal(
      "invalid_input",
      "account: holds no IBAN the ledger can name; its money waits in suspense",
    );
  return { ok: true, value: { ids: account.ids, iban } };
}

export async function accountBalance(
  deps: Deps,
  accountId: number,
  at: number | undefined,
): Promise<Outcome<AccountBalanceView>> {
  const cash = await cashOf(deps, accountId);
  if (!cash.ok) return cash;
  const account = cash.value;
  const now = deps.now();
  if (at !== undefined && at > now)
    return refusal("invalid_input", "at: a moment still to come; a balance is known up to now");
  const moment = at ?? now;
  const [expected, checks] = await Promise.all([
    deps.repos.bankChecks.expectedAt(account.iban, account.ids, moment),
    deps.repos.bankChecks.checks(account.iban, moment, 1),
  ]);
  const last = checks[0];
  return {
    ok: true,
    value: {
      account: accountId,
      expected: formatMinor(expected),
      last_statement: last?.bankClosing == null ? null : formatMinor(last.bankClosing),
      difference: last?.difference == null ? null : formatMinor(last.difference),
      check: last ? ledgerCheckView(last) : null,
      ...(at === undefined ? {} : { at: new Date(at).toISOString() }),
    },
  };
}

/** The last check of the account's statements (ending at or before `at`), with what makes its difference up. */
export async function accountCheck(
  deps: Deps,
  accountId: number,
  at: number | undefined,
): Promise<Outcome<AccountCheckView>> {
  const cash = await cashOf(deps, accountId);
  if (!cash.ok) return cash;
  const account = cash.value;
  const [last] = await deps.repos.bankChecks.checks(account.iban, at ?? deps.now(), 1);
  if (!last) return refusal("not_found", "no statement of this account has been checked yet");
  const explained = await deps.repos.bankChecks.explain(account.iban, account.ids, last.at);
  return { ok: true, value: checkView(accountId, ledgerCheckView(last), last.difference, explained) };
}

function checkView(
  account: number,
  check: LedgerCheckView,
  difference: number | null,
  e: CheckExplanation,
): AccountCheckView {
  return {
    account,
    ...check,
    unposted_lines: {
      count: e.unposted.count,
      lines: e.unposted.lines.map((l) => ({
        line_id: l.lineId,
        booked_at: new Date(l.bookedAt).toISOString(),
        amount: formatMinor(l.amount),
        state: l.state,
        payout_outcome: l.payoutOutcome,
        description: l.description,
      })),
    },
    unbanked_postings: {
      count: e.unbanked.count,
      postings: e.unbanked.postings.map((p) => ({
        posting_id: p.postingId,
        key: p.key,
        at: new Date(p.at).toISOString(),
        amount: formatMinor(p.amount),
      })),
    },
    unexplained: difference === null ? null : formatMinor(difference - (e.unposted.sum - e.unbanked.sum)),
  };
}
