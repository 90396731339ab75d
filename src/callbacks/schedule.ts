/**
 * When a callback is tried again. Pure: the worker (callbacks/worker.ts) feeds it each attempt's
 * result and stores what it decides.
 *
 * The first attempt goes out at once; after a failure the next ones follow 10 s, 1 min, 5 min,
 * 30 min, 2 h, 6 h, 12 h and 24 h later (each ±10 % jitter, so receivers coming back from an outage
 * are not hit by every sender in the same second): nine attempts over about 45 hours, then the
 * delivery is marked failed and waits for an operator to send it again.
 */
export const RETRY_DELAYS_MS: readonly number[] = [
  10_000,
  60_000,
  5 * 60_000,
  30 * 60_000,
  2 * 3_600_000,
  6 * 3_600_000,
  12 * 3_600_000,
  24 * 3_600_000,
];
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;
const MAX_RETRY_AFTER_MS = 24 * 3_600_000;

export interface AttemptResult {
  /** The HTTP status, when an answer came. */
  status?: number;
  /** What went wrong when no answer came (timeout, refused, address not allowed...). */
  error?: string;
  /** A Retry-After the receiver sent with a 429 or 503, in milliseconds. */
  retryAfterMs?: number;
}

export type NextStep =
  | { outcome: "delivered" }
  | { outcome: "retry"; at: number; reason: string }
  | { outcome: "failed"; reason: string };

/**
 * @param step attempts made since the last (re)delivery request, this one included
 * @param random a number in [0, 1) for the jitter
 */
export function nextStep(result: AttemptResult, step: number, now: number, random: number): NextStep {
  const status = result.status;
  if (status !== undefined && status >= 200 && status < 300) return { outcome: "delivered" };
  const reason =
    status === undefined
      ? (result.error ?? "no answer")
      : status >= 300 && status < 400
        ? `HTTP ${status} (redirects are not followed)`
        : `HTTP ${status}`;
  // 410 Gone is retried like any other failure: decisions.md retries anything but a 2xx for at
  // least 24 hours, and a receiver answering 410 for a while (a bad deploy) must not lose results.
  if (step >= MAX_ATTEMPTS) return { outcome: "failed", reason };
  const base = RETRY_DELAYS_MS[step - 1] ?? RETRY_DELAYS_MS[RETRY_DELAYS_MS.length - 1] ?? 0;
  let delay = Math.round(base * (0.9 + 0.2 * random));
  if ((status === 429 || status === 503) && result.retryAfterMs !== undefined) {
    delay = Math.max(delay, Math.min(result.retryAfterMs, MAX_RETRY_AFTER_MS));
  }
  return { outcome: "retry", at: now + delay, reason };
}

/** Retry-After as seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, now: number): number | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  if (/^\d{1,9}$/.test(trimmed)) return Number(trimmed) * 1000;
  // An HTTP date (IMF-fixdate, "Sun, 06 Nov 1994 08:49:37 GMT"); anything else is ignored.
  if (!/^[A-Za-z]{3}, .+ GMT$/.test(trimmed)) return undefined;
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}
