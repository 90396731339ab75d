/**
 * A firm's commissions as `firm update --commission-deposit PERCENT[+FIXED]` sets them (docs/ledger.md,
 * "Commissions and rounding"): a new schedule in force from now, kept beside the earlier ones, so
 * that a posting always takes the schedule in force at its decision.
 */
import { type Refusal, refusal } from "../domain/refusal.js";
import { parseCommission } from "../ledger/commission.js";
import type { Repositories } from "../store/index.js";

export interface CommissionChanges {
  commission_deposit?: string;
  commission_withdrawal?: string;
}

type Parsed = { kind: "deposit" | "withdrawal"; percentBp: number; fixed: number; text: string };

const PROBLEMS = {
  format: "is PERCENT or PERCENT+FIXED, such as 1.75 or 1.75+2.50",
  percent_decimals: "has a percentage of at most two decimals",
  percent_range: "has a percentage of at most 100",
  fixed_decimals: "has a fixed part of at most two decimals (kuruş)",
} as const;

/** The changes' schedules read, or the refusal naming the field that is wrong. */
export function readCommissions(changes: CommissionChanges): Parsed[] | Refusal {
  const parsed: Parsed[] = [];
  for (const kind of ["deposit", "withdrawal"] as const) {
    const text = changes[`commission_${kind}`];
    if (text === undefined) continue;
    const p = parseCommission(text);
    if (!p.ok) return refusal("invalid_input", `commission_${kind}: ${PROBLEMS[p.problem]}`);
    parsed.push({ kind, percentBp: p.percentBp, fixed: p.fixed, text: text.trim() });
  }
  return parsed;
}

/** Writes the schedules, in force from now; what the answer shows of them. */
export async function setCommissions(
  deps: { repos: Pick<Repositories, "commissions">; now(): number },
  firmId: number,
  schedules: Parsed[],
  actor: string,
): Promise<Record<string, string>> {
  const now = deps.now();
  const shown: Record<string, string> = {};
  for (const s of schedules) {
    const schedule = {
      firmId,
      kind: s.kind,
      percentBp: s.percentBp,
      fixed: s.fixed,
      min: null,
      max: null,
      fromAt: now,
    };
    await deps.repos.commissions.add(schedule, actor, now);
    shown[s.kind] = s.text;
  }
  return shown;
}
