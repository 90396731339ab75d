import { describe, expect, it } from "vitest";
import { createSharedRateLimiter, type WindowStore } from "../../src/http/rate-limit/shared-rate-limiter.js";

/**
 * The shared limiter's waiting, with its store played by a small double (the conditional upsert
 * itself runs against PostgreSQL in test/reliability/instances-changes.test.ts).
 */
function limiter(store: WindowStore, now: () => number = Date.now) {
  return createSharedRateLimiter({ store, now, onError: () => {} });
}

describe("shared rate limiter", () => {
  it("never lets more than the limit through, from shares reserved first", async () => {
    const counts = new Map<string, number>();
    const store: WindowStore = {
      async reserve(key, windowStart, n, limit) {
        const k = `${key}@${windowStart}`;
        const used = counts.get(k) ?? 0;
        if (used + n > limit) return false;
        counts.set(k, used + n);
        return true;
      },
      purge: async () => {},
    };
    // The clock stands at the start of a window: the burst stays in one.
    const l = limiter(store, () => 1_800_000_000_000);
    const answers = await Promise.all(Array.from({ length: 100 }, () => l.take("firm-1", 20)));
    l.stop();
    expect(answers.filter((a) => a === 0)).toHaveLength(40);
    expect(answers.filter((a) => a > 0)).toHaveLength(60);
  });

  it("a store that never answers, or answers after the window, holds no request past half a second", async () => {
    for (const answerAfterMs of [Number.POSITIVE_INFINITY, 2_500]) {
      let calls = 0;
      const store: WindowStore = {
        reserve: () => {
          calls++;
          return Number.isFinite(answerAfterMs)
            ? new Promise((r) => setTimeout(() => r(true), answerAfterMs))
            : new Promise(() => {});
        },
        purge: async () => {},
      };
      const l = limiter(store);
      const t0 = Date.now();
      // Before: the request waited as long as the store did (forever, or a reservation per window).
      expect(await l.take("firm-2", 100)).toBe(0);
      expect(Date.now() - t0).toBeLessThan(900);
      // Meanwhile the instance limits alone, without asking the store again.
      const before = calls;
      const t1 = Date.now();
      expect(await l.take("firm-2", 100)).toBe(0);
      expect(Date.now() - t1).toBeLessThan(50);
      expect(calls).toBe(before);
      l.stop();
    }
  });
});
