import { type DepositCandidate, type MatchOutcome, matchLine } from "../../src/reconciliation/matching.js";
import { lineKey } from "../../src/reconciliation/statement.js";
import { type GeneratedDay, type Hazard, PENDING_WINDOW_MS, type Truth } from "./statements.js";

/**
 * A generated day of statement lines run through the matcher in booking order, as the service
 * would: each line once (by its key), deposits auto-cancelled once their window passes, an
 * approval or a settlement marking the deposit settled. Counts, per hazard, what came of it.
 */
export interface HazardFigures {
  lines: number;
  approvedRight: number;
  approvedWrong: number;
  firstSuggestionRight: number;
  flaggedAfterCancel: number;
  duplicates: number;
  debits: number;
}

export type Figures = Record<Hazard, HazardFigures>;

/** Decided deposits older than this are no longer handed to the matcher (as the store would). */
const LOOKBACK_MS = 6 * 60 * 60_000;
const DAY_MS = 86_400_000;

export function emptyFigures(): Figures {
  const zero = (): HazardFigures => ({
    lines: 0,
    approvedRight: 0,
    approvedWrong: 0,
    firstSuggestionRight: 0,
    flaggedAfterCancel: 0,
    duplicates: 0,
    debits: 0,
  });
  return {
    own_name: zero(),
    code_other_name: zero(),
    same_amount: zero(),
    over_under: zero(),
    after_cancel: zero(),
    mistyped_code: zero(),
    repeated: zero(),
    debit: zero(),
  };
}

export interface Mistake {
  hazard: Hazard;
  truth: Truth;
  outcome: MatchOutcome;
}

export function runDay(day: GeneratedDay, figures: Figures, mistakes: Mistake[]): void {
  const deposits = day.deposits.map((d) => ({ ...d })).sort((a, b) => a.createdAt - b.createdAt);
  const seen = new Set<string>();
  const ctx = {
    pendingWindowMs: PENDING_WINDOW_MS,
    clockToleranceMs: 60_000,
    policyOf: () => ({ autoApprove: true, nameMayApprove: true }),
    // The day's deposits as the pool's window, as the line matcher hands them: each line meets
    // those it could point at (candidate-index.ts), within its budget.
    window: deposits,
  };
  let from = 0;
  for (const { line, hazard, truth } of day.lines) {
    const f = figures[hazard];
    f.lines++;
    const key = lineKey(line);
    if (seen.has(key)) {
      f.duplicates++;
      continue;
    }
    seen.add(key);
    while (
      from < deposits.length &&
      (deposits[from] as DepositCandidate).createdAt < line.bookedAt - LOOKBACK_MS
    )
      from++;
    const around: DepositCandidate[] = [];
    for (let i = from; i < deposits.length; i++) {
      const d = deposits[i] as DepositCandidate;
      // Made after the money came (within the day, for a line with a date only): no candidate.
      if (d.createdAt > line.bookedAt + (line.dateOnly ? DAY_MS : 0) + ctx.clockToleranceMs) break;
      if (d.status === "pending" && d.createdAt < line.bookedAt - PENDING_WINDOW_MS) d.status = "rejected";
      around.push(d);
    }
    const outcome = matchLine(line, around, ctx);
    tally(outcome, truth, f);
    if (outcome.kind === "approve" || outcome.kind === "settles" || outcome.kind === "after_cancellation") {
      const d = around.find((c) => c.id === outcome.depositId) as DepositCandidate;
      if (outcome.kind === "approve") d.status = "approved";
      d.settled = true;
    }
    const wrong =
      outcome.kind === "approve" &&
      !(
        truth.expect !== "duplicate" &&
        truth.expect !== "debit" &&
        truth.depositId === outcome.depositId &&
        truth.expect !== "after_cancellation"
      );
    const missed =
      (truth.expect === "approve" && outcome.kind !== "approve") ||
      (truth.expect === "suggest_first" &&
        !(outcome.kind === "suggest" && outcome.suggestions[0]?.depositId === truth.depositId)) ||
      (truth.expect === "after_cancellation" && outcome.kind !== "after_cancellation");
    if (wrong || missed) mistakes.push({ hazard, truth, outcome });
  }
}

function tally(outcome: MatchOutcome, truth: Truth, f: HazardFigures): void {
  if (outcome.kind === "debit") f.debits++;
  if (outcome.kind === "approve") {
    if (
      "depositId" in truth &&
      truth.expect !== "after_cancellation" &&
      truth.depositId === outcome.depositId
    )
      f.approvedRight++;
    else f.approvedWrong++;
  }
  if (
    outcome.kind === "suggest" &&
    "depositId" in truth &&
    outcome.suggestions[0]?.depositId === truth.depositId
  )
    f.firstSuggestionRight++;
  if (outcome.kind === "after_cancellation" && "depositId" in truth && outcome.depositId === truth.depositId)
    f.flaggedAfterCancel++;
}
