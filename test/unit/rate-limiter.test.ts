import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createRateLimiter } from "../../src/http/rate-limit/rate-limiter.js";

function clock(start = 1_700_000_000_000) {
  let t = start;
  return {
    now: () => t,
    advance(ms: number) {
      t += ms;
    },
  };
}

function drain(take: () => number): number {
  let allowed = 0;
  while (take() === 0) {
    allowed++;
    if (allowed > 10_000_000) throw new Error("never refused");
  }
  return allowed;
}

describe("createRateLimiter", () => {
  it("allows a burst of twice the rate, then refuses with a Retry-After of at least 1 s", () => {
    const c = clock();
    const limiter = createRateLimiter(c.now);
    for (let i = 0; i < 200; i++) expect(limiter.take(1, 100)).toBe(0);
    const retry = limiter.take(1, 100);
    expect(retry).toBeGreaterThanOrEqual(1);
    expect(Number.isInteger(retry)).toBe(true);
  });

  it("refills at the rate over time", () => {
    const c = clock();
    const limiter = createRateLimiter(c.now);
    expect(drain(() => limiter.take(1, 100))).toBe(200);
    c.advance(10); // 10 ms at 100/s = 1 token
    expect(limiter.take(1, 100)).toBe(0);
    expect(limiter.take(1, 100)).toBeGreaterThanOrEqual(1);
    c.advance(1_000);
    expect(drain(() => limiter.take(1, 100))).toBe(100);
  });

  it("never refills beyond the burst, however long the idle time", () => {
    const c = clock();
    const limiter = createRateLimiter(c.now);
    drain(() => limiter.take(1, 10));
    c.advance(3_600_000);
    expect(drain(() => limiter.take(1, 10))).toBe(20);
  });

  it("rate 1: burst 2, refusal, then one more after a second", () => {
    const c = clock();
    const limiter = createRateLimiter(c.now);
    expect(limiter.take(7, 1)).toBe(0);
    expect(limiter.take(7, 1)).toBe(0);
    expect(limiter.take(7, 1)).toBe(1);
    c.advance(500);
    expect(limiter.take(7, 1)).toBe(1);
    c.advance(500);
    expect(limiter.take(7, 1)).toBe(0);
    expect(limiter.take(7, 1)).toBeGreaterThanOrEqual(1);
  });

  it("keeps each key's bucket separate", () => {
    const c = clock();
    const limiter = createRateLimiter(c.now);
    drain(() => limiter.take(1, 5));
    expect(limiter.take(1, 5)).toBeGreaterThanOrEqual(1);
    expect(drain(() => limiter.take(2, 5))).toBe(10);
  });

  it("refused requests do not use up tokens", () => {
    const c = clock();
    const limiter = createRateLimiter(c.now);
    drain(() => limiter.take(1, 100));
    for (let i = 0; i < 50; i++) limiter.take(1, 100);
    c.advance(100); // 10 tokens
    expect(drain(() => limiter.take(1, 100))).toBe(10);
  });

  it("waiting the advertised Retry-After is always enough", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1_000 }), fc.integer({ min: 0, max: 5_000 }), (rate, idle) => {
        const c = clock();
        const limiter = createRateLimiter(c.now);
        drain(() => limiter.take(1, rate));
        c.advance(idle % 1_000);
        const retry = limiter.take(1, rate);
        if (retry === 0) return;
        expect(retry).toBeGreaterThanOrEqual(1);
        expect(Number.isInteger(retry)).toBe(true);
        c.advance(retry * 1_000);
        expect(limiter.take(1, rate)).toBe(0);
      }),
      { numRuns: 50 },
    );
  });

  it("over a long steady run admits about rate per second", () => {
    const c = clock();
    const limiter = createRateLimiter(c.now);
    let allowed = 0;
    for (let ms = 0; ms < 10_000; ms++) {
      for (let k = 0; k < 3; k++) if (limiter.take(1, 100) === 0) allowed++;
      c.advance(1);
    }
    // 200 burst + 100/s for 10 s, offered 3 per ms.
    expect(allowed).toBeGreaterThanOrEqual(1_190);
    expect(allowed).toBeLessThanOrEqual(1_201);
  });

  it("keeps at most 50,000 buckets under a flood of new keys, forgetting the least recently used", () => {
    const c = clock();
    const limiter = createRateLimiter(c.now);
    drain(() => limiter.take("old", 1));
    drain(() => limiter.take("firm", 1));
    for (let i = 0; i < 120_000; i++) {
      if (i % 1_000 === 0) expect(limiter.take("firm", 1)).toBeGreaterThan(0); // in use: kept, still drained
      limiter.take(`page-token:${i}`, 10);
    }
    expect(limiter.size()).toBeLessThanOrEqual(50_000);
    expect(limiter.take("firm", 1)).toBeGreaterThan(0);
    // "old" was pushed out: it starts again with a full bucket.
    expect(limiter.take("old", 1)).toBe(0);
  });

  it("forgets buckets idle for a minute", () => {
    const c = clock();
    const limiter = createRateLimiter(c.now);
    for (let i = 0; i < 100; i++) limiter.take(i, 5);
    c.advance(61_000);
    limiter.take("now", 5);
    expect(limiter.size()).toBe(1);
  });
});
