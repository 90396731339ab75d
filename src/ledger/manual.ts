/**
 * What only an admin posts by hand (docs/ledger.md, "Adjustments, settlements and opening
 * balances"): an adjustment of a firm's balance with its reason, a settlement (money the company
 * sent the firm from one of its bank accounts), and the balance an account starts the ledger
 * with. Each is audited in the posting's own database transaction, and keyed so that a retried
 * request posts once.
 */
import { randomUUID } from "node:crypto";
import { cashAccount, cashIbanOf, firmAccount, type PostingDraft } from "../domain/ledger.js";
import { formatMinor, parseAmount } from "../domain/money.js";
import { notFound, type Outcome, refusal } from "../domain/refusal.js";
import type { Repositories } from "../store/index.js";
import { LedgerPostingError } from "../store/ledger/ledger-errors.js";
import { adjustment, openingBalance, settlement } from "./postings.js";

type Deps = { repos: Pick<Repositories, "ledger" | "firms" | "statements">; now(): number };

/** A posting made, in the form answers give it. */
export interface ManualPostingView {
  posting: number;
  key: string;
  kind: string;
  at: string;
  /** True when the key had posted already: nothing was written again. */
  replayed: boolean;
}

/** "-12.50" or "12.50": kuruş, signed; undefined when it is not an amount. */
export function signedAmount(text: string): number | undefined {
  const negative = text.startsWith("-");
  const parsed = parseAmount(negative ? text.slice(1) : text);
  if (!parsed.ok) return undefined;
  return negative ? -parsed.minor : parsed.minor;
}

async function postByHand(
  deps: Deps,
  draft: PostingDraft,
  audit: { action: string; entityType: string; entityId: string },
): Promise<Outcome<ManualPostingView>> {
  try {
    const { posting, replayed } = await deps.repos.ledger.postAudited(draft, audit);
    return {
      ok: true,
      value: {
        posting: posting.id,
        key: posting.key,
        kind: posting.kind,
        at: new Date(posting.at).toISOString(),
        replayed,
      },
    };
  } catch (err) {
    if (err instanceof LedgerPostingError && err.rule === "ledger_key_reused")
      return refusal(
        "ledger_key_reused",
        "key: already used for another posting; a retry sends the same request",
      );
    if (err instanceof LedgerPostingError && err.rule === "ledger_posting_bad_key")
      return refusal("invalid_input", "key, reference: printable characters without spaces, at most 100");
    throw err;
  }
}

export async function adjust(
  deps: Deps,
  firmId: number,
  body: { amount: string; reason: string; key?: string | undefined },
  actor: string,
): Promise<Outcome<ManualPostingView>> {
  if (!(await deps.repos.firms.get(firmId))) return notFound("firm");
  const amount = signedAmount(body.amount);
  if (amount === undefined) return refusal("invalid_input", "amount: an amount in lira, signed, like -12.50");
  const made = adjustment({
    adjustmentId: body.key ?? randomUUID(),
    firmId,
    amount,
    reason: body.reason,
    at: deps.now(),
    actor,
  });
  if (!made.ok)
    return refusal(
      "invalid_input",
      made.problem === "reason_required" ? "reason: required" : "amount: not zero",
    );
  return postByHand(deps, made.posting, {
    action: "ledger.adjust",
    entityType: "firm",
    entityId: String(firmId),
  });
}

export async function settle(
  deps: Deps,
  firmId: number,
  body: { amount: string; account_id: number; reference: string },
  actor: string,
): Promise<Outcome<ManualPostingView>> {
  if (!(await deps.repos.firms.get(firmId))) return notFound("firm");
  const amount = parseAmount(body.amount);
  if (!amount.ok) return refusal("invalid_input", "amount: an amount in lira above zero, like 1500.00");
  const iban = await ibanOfAccount(deps, body.account_id);
  if (!iban.ok) return iban;
  const draft = settlement({
    settlementId: body.reference,
    firmId,
    iban: iban.value,
    amount: amount.minor,
    at: deps.now(),
    actor,
  });
  return postByHand(
    deps,
    { ...draft, memo: `bank reference ${body.reference}` },
    {
      action: "ledger.settle",
      entityType: "firm",
      entityId: String(firmId),
    },
  );
}

/** The balance a firm's or a bank account's ledger starts with, as of `at`; set once (a later change is a correction). */
export async function setOpening(
  deps: Deps,
  body: {
    firm_id?: number | undefined;
    account_id?: number | undefined;
    balance: string;
    at: string;
    memo?: string | undefined;
  },
  actor: string,
): Promise<Outcome<ManualPostingView>> {
  const account = await openedAccount(deps, body);
  if (!account.ok) return account;
  const balance = signedAmount(body.balance);
  if (balance === undefined)
    return refusal("invalid_input", "balance: an amount in lira, signed, like -12.50");
  const at = Date.parse(body.at);
  if (at > deps.now())
    return refusal("invalid_input", "at: a moment still to come; an opening balance is of the past");
  const existing = await deps.repos.ledger.postingByKey(`opening:${account.value}`);
  if (existing)
    return refusal(
      "ledger_opening_set",
      "this account's opening balance is set already; a change is a correction",
    );
  const draft = openingBalance({
    account: account.value,
    balance,
    at,
    actor,
    memo: body.memo ?? "opening balance",
  });
  if (draft === null)
    return refusal("invalid_input", "balance: not zero (a zero opening balance posts nothing)");
  return postByHand(deps, draft, {
    action: "ledger.opening",
    entityType: body.firm_id === undefined ? "account" : "firm",
    entityId: String(body.firm_id ?? body.account_id),
  });
}

async function openedAccount(
  deps: Deps,
  body: { firm_id?: number | undefined; account_id?: number | undefined },
): Promise<Outcome<string>> {
  if ((body.firm_id === undefined) === (body.account_id === undefined))
    return refusal("invalid_input", "firm_id, account_id: name one of them");
  if (body.firm_id !== undefined) {
    if (!(await deps.repos.firms.get(body.firm_id))) return notFound("firm");
    return { ok: true, value: firmAccount(body.firm_id) };
  }
  const iban = await ibanOfAccount(deps, body.account_id as number);
  return iban.ok ? { ok: true, value: cashAccount(iban.value) } : iban;
}

async function ibanOfAccount(deps: Deps, accountId: number): Promise<Outcome<string>> {
  const account = await deps.repos.statements.accountsWithIbanOf(accountId);
  if (!account) return notFound("account");
  const iban = cashIbanOf(account.iban);
  if (iban === null) return refusal("invalid_input", "account_id: holds no IBAN the ledger can name");
  return { ok: true, value: iban };
}

/** What each firm and bank account would open with, from what was decided before the ledger began, and what is set. */
export async function openingProposal(deps: Deps) {
  const [sums, set] = await Promise.all([
    deps.repos.ledger.decidedBeforeLedger(deps.now()),
    deps.repos.ledger.openings(),
  ]);
  const setOf = (key: string) => {
    const v = set.get(key);
    return v === undefined ? null : formatMinor(v);
  };
  return {
    since: new Date(sums.since).toISOString(),
    firms: [...sums.firms].map(([firm, s]) => ({
      firm,
      deposits: formatMinor(s.deposits),
      withdrawals: formatMinor(s.withdrawals),
      proposed: formatMinor(s.deposits - s.withdrawals),
      set: setOf(firmAccount(firm)),
    })),
    accounts: [...sums.ibans].flatMap(([held, s]) => {
      const iban = cashIbanOf(held);
      if (iban === null) return [];
      return [
        {
          accounts: [...s.accountIds].sort((a, b) => a - b),
          deposits: formatMinor(s.deposits),
          withdrawals: formatMinor(s.withdrawals),
          proposed: formatMinor(s.deposits - s.withdrawals),
          set: setOf(cashAccount(iban)),
        },
      ];
    }),
  };
}
