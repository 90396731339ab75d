import { describe, expect, it } from "vitest";
import { hangAfterMs, isSlow, newReceiverSpeed, recordFinished } from "../../src/callbacks/receiver-speed.js";

/** The worker's view of a receiver's speed (the limits it leads to are tested through the worker). */
const SLOW_AFTER = 5_000;
const quick = { durationMs: 20, answered: true };
const hung = { durationMs: 10_000, answered: false };

describe("receiver speed", () => {
  it("an attempt hangs after four times the usual answer, between a fifth of slowAfter and slowAfter", () => {
    const s = newReceiverSpeed();
    expect(hangAfterMs(s, SLOW_AFTER)).toBe(1_000);
    recordFinished(s, quick, SLOW_AFTER);
    expect(hangAfterMs(s, SLOW_AFTER)).toBe(1_000);
    for (let i = 0; i < 30; i++) recordFinished(s, { durationMs: 800, answered: true }, SLOW_AFTER);
    expect(hangAfterMs(s, SLOW_AFTER)).toBeGreaterThan(3_000);
    for (let i = 0; i < 30; i++) recordFinished(s, { durationMs: 1_500, answered: true }, SLOW_AFTER);
    expect(hangAfterMs(s, SLOW_AFTER)).toBe(SLOW_AFTER);
  });

  it("one hang among quick answers does not make a receiver slow; most of the last ten hanging does", () => {
    const s = newReceiverSpeed();
    for (let i = 0; i < 9; i++) recordFinished(s, quick, SLOW_AFTER);
    recordFinished(s, hung, SLOW_AFTER);
    expect(isSlow(s)).toBe(false);
    for (let i = 0; i < 5; i++) recordFinished(s, hung, SLOW_AFTER);
    expect(isSlow(s)).toBe(true);
    // Timeouts do not move the usual answer time.
    expect(s.usualMs).toBe(20);
  });

  it("a slow receiver recovers as soon as no more than half of the last ten were slow", () => {
    const s = newReceiverSpeed();
    for (let i = 0; i < 10; i++) recordFinished(s, hung, SLOW_AFTER);
    expect(isSlow(s)).toBe(true);
    for (let i = 0; i < 4; i++) recordFinished(s, quick, SLOW_AFTER);
    expect(isSlow(s)).toBe(true);
    recordFinished(s, quick, SLOW_AFTER);
    expect(isSlow(s)).toBe(false);
  });

  it("a first attempt that hangs makes a new receiver slow at once; a refused one does not", () => {
    const a = newReceiverSpeed();
    recordFinished(a, hung, SLOW_AFTER);
    expect(isSlow(a)).toBe(true);
    const b = newReceiverSpeed();
    recordFinished(b, { durationMs: 3, answered: false }, SLOW_AFTER);
    expect(isSlow(b)).toBe(false);
  });
});
