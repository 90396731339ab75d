/**
 * Token bucket per firm: `rate` requests per second with bursts of twice that. Per instance for
 * now; sharing it across instances is the scale-out issue's work (see docs/decisions.md).
 */
export interface RateLimiter {
  /** 0 when the request may go ahead, else the seconds to wait before retrying. */
  take(key: number | string, ratePerSecond: number): number;
  /** Stops background work, if any (the shared limiter's sync). */
  stop?(): void;
}

export function createRateLimiter(now = () => Date.now()): RateLimiter {
  const buckets = new Map<number | string, { tokens: number; at: number }>();
  return {
    take(key, rate) {
      const burst = rate * 2;
      const t = now();
      // Keys from payers (page tokens, addresses) are many: forget buckets idle for a minute.
      if (buckets.size > 10_000) {
        for (const [k, b] of buckets) if (t - b.at > 60_000) buckets.delete(k);
      }
      const bucket = buckets.get(key) ?? { tokens: burst, at: t };
      bucket.tokens = Math.min(burst, bucket.tokens + ((t - bucket.at) / 1000) * rate);
      bucket.at = t;
      buckets.set(key, bucket);
      if (bucket.tokens >= 1) {
        bucket.tokens -= 1;
        return 0;
      }
      return Math.max(1, Math.ceil((1 - bucket.tokens) / rate));
    },
  };
}
