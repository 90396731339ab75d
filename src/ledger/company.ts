/**
 * The company's own accounts in the ledger (docs/ledger.md, "Accounts"): what it earned in
 * commissions, what the banks charged, the money held for nobody yet, what it owes back to payers,
 * its own funds and the opening balances' other side. Each read from its counters (O(shards)), or
 * as of a past moment.
 */
import type { AccountKind } from "../domain/ledger.js";
import { formatMinor } from "../domain/money.js";
import { type Outcome, refusal } from "../domain/refusal.js";
import type { Repositories } from "../store/index.js";

/** The company's accounts, each a single one (no firm or IBAN in its key). */
export const COMPANY_ACCOUNTS = [
  "commission",
  "bank_fees",
  "suspense",
  "refunds_due",
  "equity",
  "opening",
] as const satisfies readonly AccountKind[];

export type CompanyBalancesView = Record<(typeof COMPANY_ACCOUNTS)[number], string> & { at?: string };

/** Every company account's balance on its normal side, now or as of `at`, read together. */
export async function companyBalances(
  deps: { repos: Pick<Repositories, "ledger">; now(): number },
  at: number | undefined,
): Promise<Outcome<CompanyBalancesView>> {
  const { ledger } = deps.repos;
  if (at === undefined) {
    const balances = await Promise.all(COMPANY_ACCOUNTS.map((key) => ledger.balance(key)));
    return { ok: true, value: viewOf(balances) };
  }
  const now = deps.now();
  const read = await Promise.all(COMPANY_ACCOUNTS.map((key) => ledger.balanceAt(key, at, now)));
  const balances: number[] = [];
  for (const r of read) {
    if (r.ok) balances.push(r.balance);
    // Before an account's first posting it held nothing; a moment still to come is refused.
    else if (r.reason === "before_ledger") balances.push(0);
    else return refusal("invalid_input", "at: a moment still to come; a balance is known up to now");
  }
  return { ok: true, value: { ...viewOf(balances), at: new Date(at).toISOString() } };
}

function viewOf(balances: number[]): CompanyBalancesView {
  const view = {} as CompanyBalancesView;
  COMPANY_ACCOUNTS.forEach((key, i) => {
    view[key] = formatMinor(balances[i] ?? 0);
  });
  return view;
}
