/**
 * The ledger's words (docs/ledger.md), shared by its rules (src/ledger/) and the store that keeps
 * it (src/store/ledger/): accounts named by a stable key, entries in kuruş with debits positive and
 * credits negative, and postings whose entries sum to zero.
 */

/**
 * Each kind of ledger account, with the side its balance normally stands on. A balance is shown in
 * that side's sign: what the company owes a firm (a credit) is a positive firm balance, the money
 * at a bank account (a debit) a positive cash balance.
 */
export const ACCOUNT_KINDS = {
  /** What the company owes a firm, available to it (`firm:<firmId>`). */
  firm: "credit",
  /** A firm's payouts sent to the bank and not yet seen leaving the account (`in_transit:<firmId>`). */
  in_transit: "credit",
  /** The money at one of the company's bank accounts (`cash:<IBAN>`; payment accounts may share one). */
  cash: "debit",
  /** The company's income from commissions. */
  commission: "credit",
  /** What the banks took as charges. */
  bank_fees: "debit",
  /** Money received for nobody yet: an unmatched credit, a payment after cancellation. */
  suspense: "credit",
  /** Money the company owes back to a payer. */
  refunds_due: "credit",
  /** The company's own funds. */
  equity: "credit",
  /** The other side of the balances the ledger started with (opening balances). */
  opening: "credit",
} as const;

export type AccountKind = keyof typeof ACCOUNT_KINDS;

/** A ledger account's key: `firm:7`, `in_transit:7`, `cash:TR…`, `commission`, … */
export type AccountKey = string;

/** The kinds whose key carries a reference (a firm's id, an IBAN); the others are one account each. */
const REFERENCED: ReadonlySet<AccountKind> = new Set(["firm", "in_transit", "cash"]);

export const firmAccount = (firmId: number): AccountKey => `firm:${firmId}`;
export const inTransitAccount = (firmId: number): AccountKey => `in_transit:${firmId}`;
export const cashAccount = (iban: string): AccountKey => `cash:${iban}`;

export interface ParsedAccountKey {
  kind: AccountKind;
  /** The firm's id or the IBAN; null for the company's accounts. */
  ref: string | null;
}

/** The key's kind and reference, or undefined when it names no account the ledger knows. */
export function parseAccountKey(key: string): ParsedAccountKey | undefined {
  const colon = key.indexOf(":");
  const kind = (colon < 0 ? key : key.slice(0, colon)) as AccountKind;
  if (!Object.hasOwn(ACCOUNT_KINDS, kind)) return undefined;
  const ref = colon < 0 ? null : key.slice(colon + 1);
  if (REFERENCED.has(kind) !== (ref !== null)) return undefined;
  if (ref === null) return { kind, ref };
  if (kind === "cash") return /^[A-Z]{2}[0-9A-Z]{10,32}$/.test(ref) ? { kind, ref } : undefined;
  return /^[1-9][0-9]{0,9}$/.test(ref) ? { kind, ref } : undefined;
}

/**
 * The IBAN as the ledger names a bank account's cash (no spaces, upper case), or null where the
 * account holds none it can name (an account written before IBANs were checked).
 */
export function cashIbanOf(iban: string | null): string | null {
  if (iban === null) return null;
  const bankForm = iban.replace(/[\s-]+/g, "").toUpperCase();
  return parseAccountKey(cashAccount(bankForm)) === undefined ? null : bankForm;
}

/** A balance as the store keeps it (debits positive) turned to the account's normal side. */
export function normalBalance(kind: AccountKind, debitMinusCredit: number): number {
  return ACCOUNT_KINDS[kind] === "debit" ? debitMinusCredit : -debitMinusCredit || 0;
}

/**
 * What an entry counts as in a day's figures (`dayFigures`): a firm's deposits, withdrawals,
 * commissions… A correction's entries keep the kinds of the entries they undo, so a reversed
 * deposit lowers that day's deposits.
 */
export const ENTRY_KINDS = [
  "deposit",
  "withdrawal",
  "commission",
  "return",
  "transit",
  "held",
  "bank_fee",
  "settlement",
  "adjustment",
  "refund",
  "opening",
] as const;
export type EntryKind = (typeof ENTRY_KINDS)[number];

/** What caused a posting. */
export const POSTING_KINDS = [
  "deposit_approved",
  "withdrawal_sent",
  "withdrawal_paid",
  "withdrawal_returned",
  "line_held",
  "refund_due",
  "refund_paid",
  "bank_fee",
  "settlement",
  "adjustment",
  "opening_balance",
  "correction",
] as const;
export type PostingKind = (typeof POSTING_KINDS)[number];

/** One entry of a posting: `amount` in kuruş, debits positive, credits negative, never zero. */
export interface PostingLine {
  account: AccountKey;
  amount: number;
  kind: EntryKind;
}

/** A posting as the rules make it and the store writes it. */
export interface PostingDraft {
  /** The idempotency key, derived from the event (`deposit-approved:<txId>`): a retried event posts once. */
  key: string;
  kind: PostingKind;
  /** When the event happened (epoch ms). */
  at: number;
  /** Who caused it, as the audit log names actors (domain/actors.ts). */
  actor: string;
  /** The posting this one corrects; null for any other. */
  corrects: number | null;
  memo: string | null;
  /** Something a person should look at, e.g. `commission_capped`; null for none. */
  flag: string | null;
  lines: PostingLine[];
}

export type PostingProblem =
  | "unbalanced"
  | "too_few_entries"
  | "zero_entry"
  | "not_integer"
  | "unknown_account"
  | "bad_key";

/**
 * Why the store would refuse a draft, or null: the database checks each of these too, this names
 * them before a round trip (and in words a test can read).
 */
export function postingProblem(draft: PostingDraft): PostingProblem | null {
  if (!/^[a-z][a-z_-]*:[!-~]{1,200}$/.test(draft.key)) return "bad_key";
  if (draft.lines.length < 2) return "too_few_entries";
  let sum = 0n;
  for (const line of draft.lines) {
    if (!Number.isSafeInteger(line.amount)) return "not_integer";
    if (line.amount === 0) return "zero_entry";
    if (parseAccountKey(line.account) === undefined) return "unknown_account";
    sum += BigInt(line.amount);
  }
  return sum === 0n ? null : "unbalanced";
}

/**
 * A firm's commission on deposits or on withdrawals, in force from `fromAt` until the firm's next
 * schedule of that kind (a schedule may start in the future). Amounts in kuruş; the percentage in
 * basis points (175 is 1.75 %), so no fraction is ever a float.
 */
export interface CommissionSchedule {
  firmId: number;
  kind: "deposit" | "withdrawal";
  percentBp: number;
  fixed: number;
  /** The least commission on one movement; null: none. */
  min: number | null;
  /** The most commission on one movement; null: none. */
  max: number | null;
  fromAt: number;
}

/**
 * What an approval's posting needs beyond the transaction, read by the store in the decision's own
 * database transaction: the firm is a test firm (its money is not real: nothing posts), the IBAN of
 * the payment account, and the firm's commission in force.
 */
export interface ApprovalFacts {
  sandbox: boolean;
  iban: string | null;
  schedule: CommissionSchedule | undefined;
}
