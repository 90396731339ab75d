/**
 * A firm's commissions as `firm update --commission-deposit PERCENT[+FIXED]` (and its minimum, maximum
 * and start) sets them (docs/ledger.md, "Commissions and rounding"): a new schedule, in force from now
 * or from a moment to come, kept beside the earlier ones, so that a posting always takes the schedule
 * in force at its decision. What a change does not name is taken from the schedule in force at its
 * start: setting a minimum keeps the percentage.
 */
import type { CommissionSchedule } from "../domain/ledger.js";
import { formatMinor } from "../domain/money.js";
import { type Outcome, type Refusal, refusal } from "../domain/refusal.js";
import { parseCommission } from "../ledger/commission.js";
import type { Repositories } from "../store/index.js";

export interface CommissionChanges {
  commission_deposit?: string;
  commission_withdrawal?: string;
  /** Kuruş; null: none. */
  commission_deposit_min?: number | null;
  commission_deposit_max?: number | null;
  commission_withdrawal_min?: number | null;
  commission_withdrawal_max?: number | null;
  /** ISO 8601; now when absent. */
  commission_from?: string;
}

type Kind = CommissionSchedule["kind"];

const PROBLEMS = {
  format: "is PERCENT or PERCENT+FIXED, such as 1.75 or 1.75+2.50",
  percent_decimals: "has a percentage of at most two decimals",
  percent_range: "has a percentage of at most 100",
  fixed_decimals: "has a fixed part of at most two decimals (kuruş)",
} as const;

/** The schedules a change writes, each whole (what it did not name taken from the one in force). */
export interface CommissionPlan {
  schedules: CommissionSchedule[];
  /** As typed, for the answer: the rate of each kind changed. */
  texts: Partial<Record<Kind, string>>;
}

const named = (changes: CommissionChanges, kind: Kind) =>
  changes[`commission_${kind}`] !== undefined ||
  changes[`commission_${kind}_min`] !== undefined ||
  changes[`commission_${kind}_max`] !== undefined;

/** When the change starts, or why it cannot. */
function startOf(changes: CommissionChanges, now: number): number | Refusal {
  if (changes.commission_from === undefined) return now;
  if (!named(changes, "deposit") && !named(changes, "withdrawal"))
    return refusal("invalid_input", "commission_from: goes with a commission, minimum or maximum to set");
  const at = Date.parse(changes.commission_from);
  // A schedule from the past would say postings already made should have charged otherwise.
  if (!(at >= now)) return refusal("invalid_input", "commission_from: must be now or later");
  return at;
}

/**
 * The change read and completed from the firm's schedules, or the refusal naming what is wrong. It
 * writes nothing: the firm's other changes and these go in only when all of them are right.
 */
export async function planCommissions(
  deps: { repos: Pick<Repositories, "commissions">; now(): number },
  firmId: number,
  changes: CommissionChanges,
): Promise<CommissionPlan | Refusal> {
  const fromAt = startOf(changes, deps.now());
  if (typeof fromAt !== "number") return fromAt;
  const plan: CommissionPlan = { schedules: [], texts: {} };
  for (const kind of ["deposit", "withdrawal"] as const) {
    if (!named(changes, kind)) continue;
    const text = changes[`commission_${kind}`];
    const rate = text === undefined ? undefined : parseCommission(text);
    if (rate && !rate.ok) return refusal("invalid_input", `commission_${kind}: ${PROBLEMS[rate.problem]}`);
    const current = await deps.repos.commissions.inForce(firmId, kind, fromAt);
    if (current?.fromAt === fromAt) return sameMoment(kind, changes);
    const asked = { min: changes[`commission_${kind}_min`], max: changes[`commission_${kind}_max`] };
    const schedule: CommissionSchedule = {
      firmId,
      kind,
      percentBp: rate?.percentBp ?? current?.percentBp ?? 0,
      fixed: rate?.fixed ?? current?.fixed ?? 0,
      min: asked.min === undefined ? (current?.min ?? null) : asked.min,
      max: asked.max === undefined ? (current?.max ?? null) : asked.max,
      fromAt,
    };
    if (schedule.min !== null && schedule.max !== null && schedule.min > schedule.max)
      return refusal("min_above_max", `commission_${kind}_min must not exceed commission_${kind}_max`);
    plan.schedules.push(schedule);
    if (text !== undefined) plan.texts[kind] = text.trim();
  }
  return plan;
}

/** Two schedules of one kind from one moment: the second is refused, whoever wrote the first. */
function sameMoment(kind: Kind, changes: CommissionChanges): Refusal {
  return changes.commission_from === undefined
    ? refusal("invalid_input", `commission_${kind}: another change set it at this very moment; try again`)
    : refusal(
        "invalid_input",
        `commission_from: the firm's ${kind} commission changes at that moment already`,
      );
}

/** `PERCENT+FIXED` as parseCommission reads it, for a rate the change did not type. */
function rateText(s: CommissionSchedule): string {
  const percent = `${Math.floor(s.percentBp / 100)}.${String(s.percentBp % 100).padStart(2, "0")}`;
  return `${percent.replace(/\.00$/, "")}+${formatMinor(s.fixed)}`;
}

/**
 * Writes the plan's schedules, all or none, before the firm's other changes; what the answer shows
 * of them, or the refusal when another change wrote one of them from the same moment meanwhile.
 */
export async function setCommissions(
  deps: { repos: Pick<Repositories, "commissions">; now(): number },
  plan: CommissionPlan,
  changes: CommissionChanges,
  actor: string,
): Promise<Outcome<Record<string, string | null>>> {
  const written = await deps.repos.commissions.addAll(plan.schedules, actor, deps.now());
  if (!written.ok) return sameMoment(written.kind, changes);
  const shown: Record<string, string | null> = {};
  for (const s of plan.schedules) {
    shown[s.kind] = plan.texts[s.kind] ?? rateText(s);
    shown[`${s.kind}_min`] = s.min === null ? null : formatMinor(s.min);
    shown[`${s.kind}_max`] = s.max === null ? null : formatMinor(s.max);
    shown.from = new Date(s.fromAt).toISOString();
  }
  return { ok: true, value: shown };
}
