import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MAX_ATTEMPTS, nextStep, parseRetryAfter, RETRY_DELAYS_MS } from "../../src/callbacks/schedule.js";

const NOW = 1_800_000_000_000;

describe("callback retry schedule", () => {
  it("a 2xx is delivered, whatever the step", () => {
    for (const status of [200, 201, 202, 204, 299]) {
      expect(nextStep({ status }, 1, NOW, 0.5)).toEqual({ outcome: "delivered" });
      expect(nextStep({ status }, MAX_ATTEMPTS, NOW, 0.5)).toEqual({ outcome: "delivered" });
    }
  });

  it("retries after 10 s, 1 min, 5 min, 30 min, 2 h, 6 h, 12 h and 24 h, then fails: over 24 hours in all", () => {
    const minutes = RETRY_DELAYS_MS.map((d) => d / 60_000);
    expect(minutes).toEqual([1 / 6, 1, 5, 30, 120, 360, 720, 1440]);
    expect(MAX_ATTEMPTS).toBe(9);
    let total = 0;
    for (let step = 1; step < MAX_ATTEMPTS; step++) {
      const next = nextStep({ status: 500 }, step, NOW, 0.5);
      expect(next).toEqual({
        outcome: "retry",
        at: NOW + (RETRY_DELAYS_MS[step - 1] ?? 0),
        reason: "HTTP 500",
      });
      total += RETRY_DELAYS_MS[step - 1] ?? 0;
    }
    expect(total).toBeGreaterThan(24 * 3_600_000);
    expect(nextStep({ status: 500 }, MAX_ATTEMPTS, NOW, 0.5)).toEqual({
      outcome: "failed",
      reason: "HTTP 500",
    });
  });

  it("jitter stays within ±10 % of the step's delay", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: MAX_ATTEMPTS - 1 }),
        fc.double({ min: 0, max: 0.999999, noNaN: true }),
        (step, random) => {
          const next = nextStep({ error: "ECONNREFUSED" }, step, NOW, random);
          if (next.outcome !== "retry") return false;
          const base = RETRY_DELAYS_MS[step - 1] ?? 0;
          return next.at - NOW >= Math.floor(base * 0.9) && next.at - NOW <= Math.ceil(base * 1.1);
        },
      ),
    );
  });

  it("names what went wrong: transport errors, redirects (never followed), statuses", () => {
    expect(nextStep({ error: "timed out after 10000 ms" }, 1, NOW, 0.5)).toMatchObject({
      outcome: "retry",
      reason: "timed out after 10000 ms",
    });
    expect(nextStep({ status: 301 }, 1, NOW, 0.5)).toMatchObject({
      outcome: "retry",
      reason: "HTTP 301 (redirects are not followed)",
    });
    expect(nextStep({}, 1, NOW, 0.5)).toMatchObject({ outcome: "retry", reason: "no answer" });
  });

  it("410 Gone is retried like any other failure (decisions.md: anything but a 2xx)", () => {
    expect(nextStep({ status: 410 }, 1, NOW, 0.5)).toMatchObject({ outcome: "retry", reason: "HTTP 410" });
    expect(nextStep({ status: 410 }, 9, NOW, 0.5)).toEqual({ outcome: "failed", reason: "HTTP 410" });
  });

  it("429 and 503 wait at least as long as Retry-After asks, at most 24 hours", () => {
    expect(nextStep({ status: 429, retryAfterMs: 120_000 }, 1, NOW, 0.5)).toMatchObject({
      at: NOW + 120_000,
    });
    expect(nextStep({ status: 503, retryAfterMs: 1_000 }, 1, NOW, 0.5)).toMatchObject({ at: NOW + 10_000 });
    expect(nextStep({ status: 429, retryAfterMs: 7 * 86_400_000 }, 1, NOW, 0.5)).toMatchObject({
      at: NOW + 86_400_000,
    });
    // Retry-After on another status is not a reason to wait longer.
    expect(nextStep({ status: 500, retryAfterMs: 120_000 }, 1, NOW, 0.5)).toMatchObject({ at: NOW + 10_000 });
  });

  it("reads Retry-After as seconds or as an HTTP date", () => {
    expect(parseRetryAfter("120", NOW)).toBe(120_000);
    expect(parseRetryAfter(" 0 ", NOW)).toBe(0);
    expect(parseRetryAfter(new Date(NOW + 30_000).toUTCString(), NOW)).toBe(30_000);
    expect(parseRetryAfter(new Date(NOW - 30_000).toUTCString(), NOW)).toBe(0);
    expect(parseRetryAfter(undefined, NOW)).toBeUndefined();
    expect(parseRetryAfter("soon", NOW)).toBeUndefined();
    expect(parseRetryAfter("-5", NOW)).toBeUndefined();
  });
});
