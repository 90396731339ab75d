/**
 * A firm's commission on one movement (docs/ledger.md, "Commissions and rounding"), in integers
 * only: kuruş, and the percentage in basis points.
 *
 * 1. The percentage's part is `amount × bp / 10 000` rounded half up to the kuruş (a half kuruş
 *    goes up: 0.5 → 1, 1.49 → 1);
 * 2. the fixed part is added;
 * 3. the sum is raised to the minimum and lowered to the maximum, where the schedule has them;
 * 4. a commission larger than the amount is capped at it, and flagged: no ledger rule refuses a
 *    decision, and a firm is never charged more than the movement.
 *
 * The firm's share is `amount − commission`, so the parts always sum to the whole.
 */
import type { CommissionSchedule } from "../domain/ledger.js";

export interface Commission {
  /** The commission, in kuruş: 0 ≤ commission ≤ amount. */
  commission: number;
  /** What is left of the amount: amount − commission. */
  net: number;
  /** The schedule asked for more than the amount; the commission is the whole amount. */
  capped: boolean;
}

const BP_PER_WHOLE = 10_000n;

/** The commission on `amount` kuruş under `schedule` (none: no commission). */
export function commissionFor(schedule: CommissionSchedule | undefined, amount: number): Commission {
  if (!Number.isSafeInteger(amount) || amount < 0) throw new RangeError(`not an amount in kuruş: ${amount}`);
  if (schedule === undefined) return { commission: 0, net: amount, capped: false };
  const scaled = BigInt(amount) * BigInt(schedule.percentBp);
  let fee = (scaled + BP_PER_WHOLE / 2n) / BP_PER_WHOLE + BigInt(schedule.fixed);
  if (schedule.min !== null && fee < BigInt(schedule.min)) fee = BigInt(schedule.min);
  if (schedule.max !== null && fee > BigInt(schedule.max)) fee = BigInt(schedule.max);
  const capped = fee > BigInt(amount);
  const commission = capped ? amount : Number(fee);
  return { commission, net: amount - commission, capped };
}

/**
 * The schedule in force at `at` among a firm's schedules of one kind: the one with the latest
 * `fromAt` not after `at` (what CommissionRepository.inForce reads from the store).
 */
export function scheduleInForce(
  schedules: readonly CommissionSchedule[],
  kind: CommissionSchedule["kind"],
  at: number,
): CommissionSchedule | undefined {
  let found: CommissionSchedule | undefined;
  for (const s of schedules)
    if (s.kind === kind && s.fromAt <= at && (found === undefined || s.fromAt > found.fromAt)) found = s;
  return found;
}

export type CommissionParse =
  | { ok: true; percentBp: number; fixed: number }
  | { ok: false; problem: "format" | "percent_decimals" | "percent_range" | "fixed_decimals" };

/**
 * `PERCENT[+FIXED]` as an operator types it (`1.75`, `1.75+2.50`, `0+3`): the percentage to at most
 * two decimals (basis points), at most 100; the fixed part in lira to at most two decimals. Read
 * digit by digit, never through a float.
 */
export function parseCommission(text: string): CommissionParse {
  const m = /^(\d{1,3})(?:\.(\d+))?(?:\+(\d{1,9})(?:\.(\d+))?)?$/.exec(text.trim());
  if (!m) return { ok: false, problem: "format" };
  const [, whole = "", fraction = "", fixedWhole = "0", fixedFraction = ""] = m;
  if (fraction.length > 2) return { ok: false, problem: "percent_decimals" };
  if (fixedFraction.length > 2) return { ok: false, problem: "fixed_decimals" };
  const percentBp = Number(whole) * 100 + Number(fraction.padEnd(2, "0"));
  if (percentBp > 10_000) return { ok: false, problem: "percent_range" };
  return { ok: true, percentBp, fixed: Number(fixedWhole) * 100 + Number(fixedFraction.padEnd(2, "0")) };
}
