/**
 * Token bucket per key: `rate` requests per second with bursts of twice that, in this process's
 * memory (the embedded store: one process). On PostgreSQL the limit is shared by the instances
 * (shared-rate-limiter.ts).
 */
export interface RateLimiter {
  /** 0 when the request may go ahead, else the seconds to wait before retrying. */
  take(key: number | string, ratePerSecond: number): number | Promise<number>;
  /** Stops background work, if any (the shared limiter's sync). */
  stop?(): void;
}

/** Buckets idle this long are forgotten: a full bucket is what a new one starts with anyway. */
const IDLE_MS = 60_000;
/**
 * At most this many buckets. Keys from payers (page tokens, addresses) can be many: a flood of new
 * keys then pushes out the least recently used, never the memory or the CPU of every request.
 */
const MAX_BUCKETS = 50_000;

/** The in-memory limiter answers at once. */
export interface LocalRateLimiter extends RateLimiter {
  take(key: number | string, ratePerSecond: number): number;
  size(): number;
}

export function createRateLimiter(now = () => Date.now()): LocalRateLimiter {
  // Kept in order of last use (each take moves its key to the end), so the idle and the surplus are
  // always at the front: forgetting them costs O(1) per bucket, never a walk over the map.
  const buckets = new Map<number | string, { tokens: number; at: number }>();
  function forget(t: number): void {
    for (const [k, b] of buckets) {
      if (buckets.size <= MAX_BUCKETS && t - b.at <= IDLE_MS) break;
      buckets.delete(k);
    }
  }
  return {
    size: () => buckets.size,
    take(key, rate) {
      const burst = rate * 2;
      const t = now();
      const bucket = buckets.get(key) ?? { tokens: burst, at: t };
      bucket.tokens = Math.min(burst, bucket.tokens + ((t - bucket.at) / 1000) * rate);
      bucket.at = t;
      buckets.delete(key);
      buckets.set(key, bucket);
      forget(t);
      if (bucket.tokens >= 1) {
        bucket.tokens -= 1;
        return 0;
      }
      return Math.max(1, Math.ceil((1 - bucket.tokens) / rate));
    },
  };
}
