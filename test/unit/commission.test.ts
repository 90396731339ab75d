import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { CommissionSchedule } from "../../src/domain/ledger.js";
import { commissionFor, parseCommission, scheduleInForce } from "../../src/ledger/commission.js";

const schedule = (s: Partial<CommissionSchedule> = {}): CommissionSchedule => ({
  firmId: 1,
  kind: "deposit",
  percentBp: 0,
  fixed: 0,
  min: null,
  max: null,
  fromAt: 0,
  ...s,
});

const scheduleArb = fc
  .record({
    percentBp: fc.integer({ min: 0, max: 10_000 }),
    fixed: fc.integer({ min: 0, max: 100_000 }),
    min: fc.option(fc.integer({ min: 0, max: 100_000 })),
    max: fc.option(fc.integer({ min: 0, max: 1_000_000 })),
  })
  .map((s) => schedule({ ...s, max: s.min !== null && s.max !== null && s.max < s.min ? s.min : s.max }));
const amountArb = fc.integer({ min: 0, max: 99_999_999_999 });

/** The commission rule (docs/ledger.md, "Commissions and rounding"), in integers only. */
describe("commissionFor", () => {
  it("rounds the percentage's part half up to the kuruş", () => {
    // 1.5 % of 1,000.50 TL = 15.0075 TL → 15.01; of 0.33 TL = 0.495 kuruş → 0; of 1.00 TL = 1.5 kuruş → 2.
    expect(commissionFor(schedule({ percentBp: 150 }), 100_050).commission).toBe(1501);
    expect(commissionFor(schedule({ percentBp: 150 }), 33).commission).toBe(0);
    expect(commissionFor(schedule({ percentBp: 150 }), 100).commission).toBe(2);
    expect(commissionFor(schedule({ percentBp: 50 }), 100).commission).toBe(1);
    expect(commissionFor(schedule({ percentBp: 49 }), 100).commission).toBe(0);
  });

  it("adds the fixed part, then holds the sum between the minimum and the maximum", () => {
    expect(commissionFor(schedule({ percentBp: 100, fixed: 250 }), 10_000).commission).toBe(350);
    expect(commissionFor(schedule({ percentBp: 100, min: 500 }), 10_000).commission).toBe(500);
    expect(commissionFor(schedule({ percentBp: 100, max: 50 }), 10_000).commission).toBe(50);
  });

  it("caps a commission larger than the amount at it, and flags it", () => {
    expect(commissionFor(schedule({ fixed: 500 }), 300)).toEqual({ commission: 300, net: 0, capped: true });
    expect(commissionFor(schedule({ min: 1000 }), 999)).toEqual({ commission: 999, net: 0, capped: true });
    expect(commissionFor(schedule({ fixed: 300 }), 300)).toEqual({ commission: 300, net: 0, capped: false });
  });

  it("no schedule, no commission; a bad amount is a bug", () => {
    expect(commissionFor(undefined, 12_345)).toEqual({ commission: 0, net: 12_345, capped: false });
    expect(() => commissionFor(schedule(), 1.5)).toThrow(RangeError);
    expect(() => commissionFor(schedule(), -1)).toThrow(RangeError);
  });

  it("the parts always sum to the whole, within bounds, half up exactly (property)", () => {
    fc.assert(
      fc.property(scheduleArb, amountArb, (s, amount) => {
        const c = commissionFor(s, amount);
        expect(c.commission + c.net).toBe(amount);
        expect(c.commission).toBeGreaterThanOrEqual(0);
        expect(c.commission).toBeLessThanOrEqual(amount);
        expect(Number.isSafeInteger(c.commission)).toBe(true);
        // The uncapped figure, by exact rational arithmetic: 2·(pct·10000) vs 2·(amount·bp) ± 10000.
        const exact = BigInt(amount) * BigInt(s.percentBp);
        const pct = (exact * 2n + 10_000n) / 20_000n;
        expect(pct * 10_000n - exact <= 5_000n && exact - pct * 10_000n < 5_000n).toBe(true);
        let wanted = pct + BigInt(s.fixed);
        if (s.min !== null && wanted < BigInt(s.min)) wanted = BigInt(s.min);
        if (s.max !== null && wanted > BigInt(s.max)) wanted = BigInt(s.max);
        expect(c.capped).toBe(wanted > BigInt(amount));
        expect(c.commission).toBe(c.capped ? amount : Number(wanted));
      }),
    );
  });

  it("a larger amount never costs less commission (property)", () => {
    fc.assert(
      fc.property(scheduleArb, amountArb, fc.nat(1_000_000), (s, amount, more) => {
        expect(commissionFor(s, amount + more).commission).toBeGreaterThanOrEqual(
          commissionFor(s, amount).commission,
        );
      }),
    );
  });
});

describe("scheduleInForce", () => {
  const day = 86_400_000;
  const list = [
    schedule({ percentBp: 100, fromAt: 0 }),
    schedule({ percentBp: 200, fromAt: 10 * day }),
    schedule({ percentBp: 300, fromAt: 20 * day }), // still to come at 15 days
    schedule({ kind: "withdrawal", percentBp: 50, fromAt: 5 * day }),
  ];
  it("takes the latest schedule of the kind from the moment or before", () => {
    expect(scheduleInForce(list, "deposit", 0)?.percentBp).toBe(100);
    expect(scheduleInForce(list, "deposit", 10 * day - 1)?.percentBp).toBe(100);
    expect(scheduleInForce(list, "deposit", 10 * day)?.percentBp).toBe(200);
    expect(scheduleInForce(list, "deposit", 15 * day)?.percentBp).toBe(200);
    expect(scheduleInForce(list, "deposit", 25 * day)?.percentBp).toBe(300);
    expect(scheduleInForce(list, "withdrawal", 4 * day)).toBeUndefined();
    expect(scheduleInForce([...list].reverse(), "withdrawal", 6 * day)?.percentBp).toBe(50);
  });
});

describe("parseCommission", () => {
  it("reads PERCENT[+FIXED] digit by digit", () => {
    expect(parseCommission("1.75")).toEqual({ ok: true, percentBp: 175, fixed: 0 });
    expect(parseCommission("1.75+2.50")).toEqual({ ok: true, percentBp: 175, fixed: 250 });
    expect(parseCommission("0+3")).toEqual({ ok: true, percentBp: 0, fixed: 300 });
    expect(parseCommission("100")).toEqual({ ok: true, percentBp: 10_000, fixed: 0 });
    expect(parseCommission("0.1")).toEqual({ ok: true, percentBp: 10, fixed: 0 });
  });
  it("refuses what it cannot read exactly", () => {
    expect(parseCommission("1.755")).toEqual({ ok: false, problem: "percent_decimals" });
    expect(parseCommission("101")).toEqual({ ok: false, problem: "percent_range" });
    expect(parseCommission("1+2.505")).toEqual({ ok: false, problem: "fixed_decimals" });
    for (const bad of ["", "-1", "1,5", "1e2", "+2", "1.5%"])
      expect(parseCommission(bad)).toEqual({ ok: false, problem: "format" });
  });
});
