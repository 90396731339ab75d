/**
 * Statement lines as operators see them (the admin API and the console answer alike): a line, why a
 * proven one was only suggested, and a line with the deposits it names.
 */
import { formatMinor } from "../domain/money.js";
import { isoTime } from "../domain/transaction-view.js";
import type { StatementLineRow } from "../store/statements/statement-lines.js";
import { operatorTransactionView } from "../transactions/views.js";
import type { FeedDeps } from "./feed.js";
import type { Evidence, HeldApprovals, Stop, StopCode, Suggestion } from "./matching.js";
import { normalIban } from "./payout-pool.js";

/** A line as operators see it: amounts as the contract writes them, times in ISO 8601. */
export function lineView(row: StatementLineRow) {
  const evidence = JSON.parse(row.evidence) as unknown;
  return {
    id: Number(row.id),
    account_id: Number(row.account_id),
    booked_at: isoTime(Number(row.booked_at)),
    date_only: row.date_only === 1,
    amount: formatMinor(Number(row.amount)),
    direction: row.direction,
    currency: row.currency,
    sender_name: row.sender_name,
    sender_iban: row.sender_iban,
    description: row.description,
    bank_ref: row.bank_ref,
    state: row.state,
    transaction_id: row.transaction_id === null ? null : Number(row.transaction_id),
    evidence,
    held: heldView(evidence),
    stopped_by: stoppedByView(evidence),
    source: row.source,
    created_at: isoTime(Number(row.created_at)),
    decided_at: row.decided_at === null ? null : isoTime(Number(row.decided_at)),
    decided_by: row.decided_by,
    /** What the line did for payouts (paid, suggested, double_payment, return, …); null: none. */
    payout_outcome: row.payout_outcome ?? null,
    end_to_end_id: row.end_to_end_id ?? null,
    /** The credit marked not ours this debit paid back (docs/ledger.md, "A refund paid"); else null. */
    refund_of: row.refund_of === null ? null : Number(row.refund_of),
  };
}

/** A debit in lira no payout, fee or refund has taken: it may be recorded as paying back a credit. */
function freeDebit(row: StatementLineRow): boolean {
  return (
    row.direction === "debit" &&
    row.currency === "TRY" &&
    row.refund_of === null &&
    row.held_posting_id === null &&
    (row.payout_outcome === null || row.payout_outcome === "unmatched")
  );
}

/**
 * Why a proven line was only suggested (matching.ts, HeldApprovals): its statement does not balance
 * (by `difference`, the closing balance less opening and entries, when both balances were given),
 * or its hours were too crowded to be sure. Null for any other line.
 */
function heldView(evidence: unknown): { code: HeldApprovals["code"]; difference: string | null } | null {
  const held = (evidence as { held?: Pick<HeldApprovals, "code" | "differenceMinor"> } | null)?.held;
  if (!held) return null;
  const d = held.differenceMinor;
  return {
    code: held.code,
    difference: d === null ? null : `${d < 0 ? "-" : ""}${formatMinor(Math.abs(d))}`,
  };
}

/**
 * What stopped a suggested line from approving (matching.ts, Stop): `deposit_id` the suggestion a
 * reason is about (null: the line), `deposits` the others that stood in its way (the newest five),
 * `deposit_count` how many did. Empty for any other line, and for lines matched before the reasons
 * were kept.
 */
function stoppedByView(evidence: unknown): {
  code: StopCode;
  deposit_id: number | null;
  deposits: { id: number; status: string }[];
  deposit_count: number;
}[] {
  const stops = (evidence as { stoppedBy?: Stop[] } | null)?.stoppedBy;
  if (!Array.isArray(stops)) return [];
  return stops.map((s) => ({
    code: s.code,
    deposit_id: s.depositId ?? null,
    deposits: s.others ?? [],
    deposit_count: s.othersCount ?? s.others?.length ?? 0,
  }));
}

/** The deposits a line's evidence names, best first: its own, or the ranked suggestions. */
function namedDeposits(
  evidence: unknown,
): { id: number; score: number | null; evidence: Evidence | undefined }[] {
  const e = evidence as { depositId?: number; evidence?: Evidence; suggestions?: Suggestion[] };
  if (Array.isArray(e.suggestions))
    return e.suggestions.map((s) => ({ id: s.depositId, score: s.score, evidence: s.evidence }));
  return typeof e.depositId === "number" ? [{ id: e.depositId, score: null, evidence: e.evidence }] : [];
}

export async function lineDetail(deps: Pick<FeedDeps, "repos">, row: StatementLineRow) {
  const view = lineView(row);
  const candidates = [];
  for (const named of namedDeposits(view.evidence)) {
    const tx = await deps.repos.transactions.get(named.id);
    if (tx)
      candidates.push({
        transaction: operatorTransactionView(tx),
        score: named.score,
        evidence: named.evidence,
      });
  }
  // A refund's two ends: the credits a free debit may pay back (null: the debit is taken, or a
  // credit), and the debit that paid a credit marked not ours back.
  const refundCandidates = freeDebit(row)
    ? rankRefunds(row, await deps.repos.statements.refundCandidates(row)).map(lineView)
    : null;
  const notOurs = row.direction === "credit" && row.state === "not_ours";
  const refundedBy = notOurs ? await deps.repos.statements.refundingDebit(Number(row.id)) : null;
  // Owed back: its money held in lira (a refund is recorded against it) and no debit has paid it yet.
  const refundDue = notOurs && row.held_posting_id !== null && row.currency === "TRY" && refundedBy === null;
  return {
    ...view,
    candidates,
    refund_candidates: refundCandidates,
    refunded_by: refundedBy,
    refund_due: refundDue,
  };
}

/** How many credits a debit's detail offers as the refund it may pay. */
const REFUNDS_OFFERED = 5;

/**
 * The credits a debit most likely paid back, best first: those sent from the IBAN the debit went to
 * (a refund goes to the payer's own account; IBANs compared as the bank's form, without spaces),
 * then those on the debit's own account, each newest first (as read).
 */
function rankRefunds(debit: StatementLineRow, credits: StatementLineRow[]): StatementLineRow[] {
  const to = normalIban(debit.sender_iban);
  const rank = (c: StatementLineRow) =>
    (to !== "" && normalIban(c.sender_iban) === to ? 0 : 2) + (c.account_id === debit.account_id ? 0 : 1);
  return credits
    .map((c, i) => ({ c, i, r: rank(c) }))
    .sort((a, b) => a.r - b.r || a.i - b.i)
    .slice(0, REFUNDS_OFFERED)
    .map((x) => x.c);
}

export type LineView = ReturnType<typeof lineView>;
export type LineDetailView = Awaited<ReturnType<typeof lineDetail>>;
