/**
 * Lines of one payment account matched as they come and written a batch at a time, each with its
 * outcome and the approval it makes (store/statements/statement-lines.ts): a file's statements, the live
 * feed's requests and the lines operators type all go through here.
 */

import { callbackDraft } from "../callbacks/message.js";
import type { PaymentCodes } from "../domain/payment-code.js";
import { RECONCILE_ACTOR } from "../domain/statement-lines.js";
import { approvalPosting } from "../ledger/approval-posting.js";
import type { DecisionWrite } from "../store/decisions/decisions.js";
import type { Repositories } from "../store/index.js";
import type { StatementLineState } from "../store/schema.js";
import type {
  CandidateRow,
  LineOutcome,
  LineRecord,
  RecordResult,
} from "../store/statements/statement-lines.js";
import { CLOCK_TOLERANCE_MS, candidatePool, LOOKBACK_MS } from "./candidate-pool.js";
import { holdLines } from "./held-lines.js";
import { type DepositCandidate, type HeldApprovals, type MatchOutcome, matchLine } from "./matching.js";
import {
  type AwaitingReturnLine,
  awaitingReturnLine,
  PAYOUT_ACTOR,
  PAYOUT_LOOKBACK_MS,
  type PayoutLinePlan,
  payoutLinePlan,
  poolOf,
} from "./payout-lines.js";
import type { PayoutPool } from "./payout-pool.js";
import { lineKey, type StatementLine } from "./statement.js";

export interface ReconcileDeps {
  repos: Repositories;
  /** Each candidate's payment code, as the payer was shown it: what a line's description is read for. */
  paymentCodes: PaymentCodes;
  now(): number;
  /** After lines approved deposits: their callbacks go out at once, the queues drop them. */
  decisionsMade(): void;
  /** The most deposits one reading of the pool holds (candidate-pool.ts); tests make it small. */
  poolCeiling?: number;
}

/**
 * `lines` every entry read, `duplicates` those already known, `credits` the new credits, and
 * approved + suggested + unmatched = credits: `approved` counts the lines whose deposit is approved
 * (now, or already: `settled` of them), `unmatched` those that approve nothing and suggest nothing
 * (`after_cancellation` of them paid a deposit already cancelled), `returns` payouts' returns.
 * Debits count in none of these: `debits`, and of what they name `payouts_paid` (payouts) and
 * `payouts_suggested` (lines).
 */
export interface LineCounts {
  lines: number;
  credits: number;
  approved: number;
  suggested: number;
  unmatched: number;
  duplicates: number;
  settled: number;
  after_cancellation: number;
  /** New debit lines; of the payouts they name, those paid and the lines only suggested. */
  debits: number;
  payouts_paid: number;
  payouts_suggested: number;
  /** Credits that are payouts' returns: approved + suggested + unmatched + returns = credits. */
  returns: number;
}

export function emptyCounts(): LineCounts {
  return {
    lines: 0,
    credits: 0,
    approved: 0,
    suggested: 0,
    unmatched: 0,
    duplicates: 0,
    settled: 0,
    after_cancellation: 0,
    debits: 0,
    payouts_paid: 0,
    payouts_suggested: 0,
    returns: 0,
  };
}

export { LOOKBACK_MS } from "./candidate-pool.js";

const CROWDED: HeldApprovals = {
  code: "crowded",
  differenceMinor: null,
  why: "more deposits were made around this line than one reading holds",
};

/**
 * Lines written per database transaction: each line with its approval is whole either way, and a
 * crash loses at most the batch being written, which the same file imported again writes.
 */
export const BATCH = 200;

/** The booking times a set of lines spans: the deposits they may pay were made around them. */
export interface BookedSpan {
  firstBooked: number | null;
  lastBooked: number | null;
}

/**
 * Where lines come from: the account, the accounts sharing its IBAN, the statement if a file, and
 * who typed them if an operator did: a typed line that approves a deposit is that person's
 * approval, a bank's (file or feed) the service's (RECONCILE_ACTOR).
 */
export type LineSource = {
  accountId: number;
  accountIds: number[];
  /** The bank account's IBAN: the ledger's cash its held lines and fees post to (held-lines.ts). */
  iban: string;
  importId: number | null;
  span: BookedSpan;
  /**
   * Why none of these lines may approve a deposit (a statement that does not balance): each is
   * suggested instead, with this reason. Null when they may.
   */
  approvalsHeld?: HeldApprovals | null;
} & ({ source: "file" | "feed" } | { source: "hand"; typedBy: string });

function approverOf(where: LineSource): string {
  return where.source === "hand" ? where.typedBy : RECONCILE_ACTOR;
}

/** A line as written: its id, its state, the deposit it is tied to; or a duplicate of one known. */
export type LineResult =
  | { duplicate: true }
  | { duplicate: false; id: number; state: StatementLineState; transaction_id: number | null };

type Pooled = DepositCandidate & { row: CandidateRow };

function toCandidate(row: CandidateRow, codes: PaymentCodes): Pooled {
  return {
    id: row.id,
    firmId: row.firm_id,
    accountId: row.account_id,
    status: row.status,
    amountMinor: row.amount,
    createdAt: row.created_at,
    payer: { firstName: row.first_name, middleName: row.middle_name, lastName: row.last_name },
    paymentCode: codes.of(row.id),
    userId: row.user_id,
    reference: row.reference,
    sandbox: row.firm_sandbox === 1,
    settled: row.settled === 1,
    row,
  };
}

export interface LineMatcher {
  line(line: StatementLine): Promise<void>;
  /** Writes what is left; `onResult` has then seen every line, in order. */
  finish(): Promise<void>;
}

export function lineMatcher(
  deps: ReconcileDeps,
  where: LineSource,
  counts: LineCounts,
  onResult?: (result: LineResult) => void,
): LineMatcher {
  let byId = new Map<number, Pooled>();
  const policies = new Map<number, { autoApprove: boolean; nameMayApprove: boolean }>();
  let seen: readonly Pooled[] | undefined;
  const firmsCallbackMiddle = new Map<number, boolean>();
  const ctx = {
    pendingWindowMs: LOOKBACK_MS,
    clockToleranceMs: CLOCK_TOLERANCE_MS,
    policyOf: (firmId: number) => policies.get(firmId) ?? { autoApprove: false, nameMayApprove: false },
    approvalsHeld: null as HeldApprovals | null,
    window: undefined as readonly Pooled[] | undefined,
  };
  const pool = candidatePool<Pooled>(
    {
      load: (from, to, limit) => deps.repos.statements.candidates(where.accountIds, from, to, limit),
      toCandidate: (row) => toCandidate(row, deps.paymentCodes),
    },
    where.span.lastBooked,
    deps.poolCeiling,
  );
  /**
   * Deposits this matcher approved or settled in the batch not yet written: a window read again
   * meanwhile has them as the store does, before the batch, and is told (batches stay whole, the
   * store's last word unchanged).
   */
  const unwritten = new Map<number, "approve" | "settles">();
  const take = (c: Pooled, how: "approve" | "settles") => {
    c.settled = true;
    if (how === "approve") c.status = "approved";
  };
  /** The window's deposits by id, and their firms' rules, each time a window is read. */
  const learn = (current: readonly Pooled[]) => {
    if (current === seen) return;
    seen = current;
    byId = new Map(current.map((c) => [c.id, c]));
    for (const c of current) {
      policies.set(c.firmId, {
        autoApprove: c.row.reconcile_auto === 1,
        nameMayApprove: c.row.reconcile_by_name === 1,
      });
      const how = unwritten.get(c.id);
      if (how) take(c, how);
    }
  };
  const batch: { line: StatementLine; item: LineRecord }[] = [];
  const flush = async () => {
    if (batch.length === 0) return;
    const results = await deps.repos.statements.recordBatch(
      batch.map((b) => b.item),
      holdLines(where.iban, deps.now(), approverOf(where)),
    );
    for (const [i, result] of results.entries()) {
      if (result.kind === "duplicate") counts.duplicates++;
      else countLine(counts, batch[i]?.line.direction ?? "credit", result, batch[i]?.item);
      onResult?.(resultOf(result, batch[i]?.item));
    }
    // The pool in memory follows what this run's lines did; it is read again only when a write
    // found payouts moved by someone else (another instance, a channel) and kept doubt instead.
    if (results.some((r, i) => r.kind === "recorded" && movedMeanwhile(r, batch[i]?.item))) payouts.refresh();
    batch.length = 0;
    unwritten.clear();
  };
  const payouts = payoutPoolOf(deps, where);
  return {
    async line(line) {
      const read = await payouts.pool();
      const payout = payoutLinePlan(line, read.pool, {
        now: deps.now(),
        held: where.approvalsHeld ?? null,
        middleNames: await payouts.middleNames(),
        awaitingReturnLine: read.awaitingReturnLine,
      });
      if (payout) {
        counts.lines++;
        batch.push({ line, item: payoutRecordOf(deps, where, line, payout) });
        if (batch.length >= BATCH) await flush();
        return;
      }
      const around = await pool.around(line);
      learn(pool.current);
      ctx.window = pool.current;
      counts.lines++;
      ctx.approvalsHeld = where.approvalsHeld ?? (around.complete ? null : CROWDED);
      const outcome = matchLine(line, around.candidates, ctx);
      const item = await recordOf(deps, where, line, outcome, byId, firmsCallbackMiddle);
      // The pool as the write will leave it, for the next lines: a deposit approved or settled here
      // is no one else's. Should the write find it decided meanwhile, it was no candidate anyway.
      if (outcome.kind === "approve" || outcome.kind === "settles") {
        const taken = byId.get(outcome.depositId);
        if (taken) take(taken, outcome.kind);
        unwritten.set(outcome.depositId, outcome.kind);
      }
      batch.push({ line, item });
      if (batch.length >= BATCH) await flush();
    },
    finish: flush,
  };
}

/** The line's row, its outcome, and the approval it makes, as the store records them. */
async function recordOf(
  deps: ReconcileDeps,
  where: LineSource,
  line: StatementLine,
  outcome: MatchOutcome,
  byId: Map<number, Pooled>,
  firmsCallbackMiddle: Map<number, boolean>,
): Promise<LineRecord> {
  const now = deps.now();
  const plan = planOf(outcome, now, approverOf(where));
  const approved = outcome.kind === "approve" ? byId.get(outcome.depositId) : undefined;
  let decision: ((lineId: number) => DecisionWrite) | undefined;
  if (approved) {
    const middle = await callbackMiddleName(deps, firmsCallbackMiddle, approved.firmId);
    decision = (lineId) => ({
      transactionId: approved.id,
      status: "approved",
      amount: approved.amountMinor,
      originalAmount: null,
      decidedBy: approverOf(where),
      note: `bank statement line ${lineId}`,
      now,
      callback: (decided) => callbackDraft(decided, { callbackMiddleName: middle }),
      posting: approvalPosting,
    });
  }
  return {
    line: lineRow(deps, where, line),
    outcome: plan.outcome,
    fallback: plan.fallback,
    decision,
  };
}

/** The line's row as written, whatever it is for. */
function lineRow(deps: ReconcileDeps, where: LineSource, line: StatementLine): LineRecord["line"] {
  return {
    account_id: where.accountId,
    line_key: lineKey(line),
    import_id: where.importId,
    source: where.source,
    booked_at: line.bookedAt,
    date_only: line.dateOnly ? 1 : 0,
    amount: line.amountMinor,
    direction: line.direction,
    currency: line.currency,
    sender_name: line.senderName,
    sender_iban: line.senderIban,
    description: line.description,
    bank_ref: line.bankRef,
    end_to_end_id: line.endToEndId ?? null,
    created_at: deps.now(),
  };
}

/** A line that pays, returns or names payouts: its row, its outcome and its effect. */
function payoutRecordOf(
  deps: ReconcileDeps,
  where: LineSource,
  line: StatementLine,
  plan: PayoutLinePlan,
): LineRecord {
  const now = deps.now();
  const closed = plan.state === "not_ours";
  return {
    line: { ...lineRow(deps, where, line), payout_outcome: plan.payoutOutcome },
    outcome: {
      state: plan.state,
      transactionId: null,
      evidence: plan.evidence,
      decidedBy: closed ? PAYOUT_ACTOR : null,
      now,
    },
    fallback: plan.state,
    payout: plan.effect,
  };
}

/** The account's payouts a run of lines is judged against, read again after each written batch. */
function payoutPoolOf(deps: ReconcileDeps, where: LineSource) {
  let pool: Promise<{ pool: PayoutPool; awaitingReturnLine: AwaitingReturnLine }> | undefined;
  let names: Promise<Map<number, boolean>> | undefined;
  const since = () => Math.min(where.span.firstBooked ?? deps.now(), deps.now()) - PAYOUT_LOOKBACK_MS;
  return {
    pool() {
      pool ??= deps.repos.payoutOutcomes
        .pool(where.accountIds, since())
        .then((rows) => ({ pool: poolOf(rows), awaitingReturnLine: awaitingReturnLine(rows) }));
      return pool;
    },
    refresh() {
      pool = undefined;
    },
    middleNames() {
      names ??= deps.repos.firms
        .list()
        .then((firms) => new Map(firms.map((f) => [f.id, f.callback_middle_name === 1])));
      return names;
    },
  };
}

/** A payout line the write left other than planned: its payouts moved meanwhile. */
function movedMeanwhile(result: RecordResult & { kind: "recorded" }, item: LineRecord | undefined): boolean {
  return (
    item?.payout !== undefined &&
    result.payoutOutcome !== undefined &&
    result.payoutOutcome !== (item.line.payout_outcome ?? null)
  );
}

function countLine(
  counts: LineCounts,
  direction: "credit" | "debit",
  result: RecordResult & { kind: "recorded" },
  item: LineRecord | undefined,
) {
  // What the write left (a payment that found its payouts moved is a suggestion), else what was planned.
  const payoutOutcome = result.payoutOutcome !== undefined ? result.payoutOutcome : item?.line.payout_outcome;
  if (direction === "debit") {
    counts.debits++;
    counts.payouts_paid += result.payoutsPaid ?? 0;
    if (payoutOutcome === "suggested") counts.payouts_suggested++;
    return;
  }
  if (payoutOutcome === "return") {
    counts.credits++;
    counts.returns++;
    return;
  }
  count(counts, result.state);
}

function count(counts: LineCounts, state: StatementLineState): void {
  counts.credits++;
  if (state === "approved" || state === "settled") counts.approved++;
  else if (state === "suggested") counts.suggested++;
  else counts.unmatched++;
  if (state === "settled") counts.settled++;
  if (state === "after_cancellation") counts.after_cancellation++;
}

function resultOf(result: RecordResult, item: LineRecord | undefined): LineResult {
  if (result.kind === "duplicate") return { duplicate: true };
  // The outcome's deposit, unless the write fell back to a state that ties the line to none.
  const tied = item !== undefined && result.state === item.outcome.state;
  return {
    duplicate: false,
    id: result.lineId,
    state: result.state,
    transaction_id: tied ? (item?.outcome.transactionId ?? null) : null,
  };
}

/** The line's state and evidence for an outcome, and what it becomes if the write finds it moot. */
function planOf(
  outcome: MatchOutcome,
  now: number,
  approver: string,
): { outcome: LineOutcome; fallback: StatementLineState } {
  const evidence = JSON.stringify(outcome);
  const base = { evidence, now, decidedBy: null, transactionId: null };
  switch (outcome.kind) {
    case "debit":
      return { outcome: { ...base, state: "debit" }, fallback: "debit" };
    case "approve":
      return {
        outcome: { ...base, state: "approved", transactionId: outcome.depositId, decidedBy: approver },
        fallback: "suggested",
      };
    case "settles":
      return {
        outcome: { ...base, state: "settled", transactionId: outcome.depositId },
        fallback: "unmatched",
      };
    case "after_cancellation":
      return {
        outcome: { ...base, state: "after_cancellation", transactionId: outcome.depositId },
        fallback: "unmatched",
      };
    case "suggest":
      return { outcome: { ...base, state: "suggested" }, fallback: "suggested" };
    case "unmatched":
      return { outcome: { ...base, state: "unmatched" }, fallback: "unmatched" };
  }
}

async function callbackMiddleName(
  deps: ReconcileDeps,
  cache: Map<number, boolean>,
  firmId: number,
): Promise<boolean> {
  const known = cache.get(firmId);
  if (known !== undefined) return known;
  const firm = await deps.repos.firms.get(firmId);
  const middle = firm?.callback_middle_name === 1;
  cache.set(firmId, middle);
  return middle;
}
