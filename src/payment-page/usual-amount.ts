/**
 * The amount above which the payment page's confirmation step warns the payer that it is far above
 * what this firm's payers usually send (docs/hosted-page.md): a digit too many ("150000" for
 * "15000") is the mistake it is for. A warning only: the amount is never refused for it.
 *
 * The firm's own setting (`usual_amount_max`) when an operator set one; else ten times the median
 * of its approved deposits of the last 30 days (its newest thousand at most), once it has at least
 * twenty there: fewer say nothing of what is usual. Rounded up to two significant digits, so the
 * page is told a round figure and not the firm's median to the kuruş.
 */
import type { UsualAmountRepository } from "../store/payment-page/usual-amounts.js";

export const USUAL_WINDOW_MS = 30 * 24 * 60 * 60_000;
export const USUAL_MIN_DEPOSITS = 20;
export const USUAL_SAMPLE = 1000;
export const USUAL_FACTOR = 10;
/**
 * How long one firm's figure is reused: every open page asks for it at each status check (one
 * every 3 s per payer), and a median of a month moves slowly.
 */
export const USUAL_CACHE_MS = 10 * 60_000;
/** Firms whose figure is kept at once; past it the cache starts again (a bound, not a tuning). */
const CACHE_LIMIT = 10_000;

/** `amounts` sorted, smallest first (minor units): the usual maximum, or null when too few. */
export function usualMaxOf(amounts: readonly number[]): number | null {
  if (amounts.length < USUAL_MIN_DEPOSITS) return null;
  const median = amounts[Math.floor(amounts.length / 2)] as number;
  return roundUpTwoDigits(median * USUAL_FACTOR);
}

/** 1,234,560 → 1,300,000; 99 → 99; in whole minor units. */
export function roundUpTwoDigits(minor: number): number {
  if (minor < 100) return minor;
  const step = 10 ** (String(Math.trunc(minor)).length - 2);
  return Math.ceil(minor / step) * step;
}

export interface UsualAmounts {
  /** The firm's usual maximum (minor units), or null when nothing is known to be unusual. */
  usualMax(firm: { id: number; usual_amount_max: number | null }): Promise<number | null>;
}

export function createUsualAmounts(store: UsualAmountRepository, now: () => number): UsualAmounts {
  // One read per firm per USUAL_CACHE_MS: pages that ask at once while it is out share it.
  const cache = new Map<number, { until: number; value: Promise<number | null> }>();
  return {
    usualMax(firm) {
      if (firm.usual_amount_max !== null) return Promise.resolve(Number(firm.usual_amount_max));
      const at = now();
      const kept = cache.get(firm.id);
      if (kept && kept.until > at) return kept.value;
      if (cache.size >= CACHE_LIMIT) cache.clear();
      const value = store
        .recentApprovedDeposits(firm.id, at - USUAL_WINDOW_MS, USUAL_SAMPLE)
        .then(usualMaxOf);
      const entry = { until: at + USUAL_CACHE_MS, value };
      // A failed read is not kept: the next page asks again.
      value.catch(() => {
        if (cache.get(firm.id) === entry) cache.delete(firm.id);
      });
      cache.set(firm.id, entry);
      return value;
    },
  };
}
