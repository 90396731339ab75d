import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { startOfTurkeyDay } from "../../src/domain/turkey-time.js";
import {
  type AccountCandidate,
  isEligible,
  pickAccount,
  rotationStamp,
  routeOrder,
  withinDailyCap,
} from "../../src/routing/account-order.js";

function account(id: number, overrides: Partial<AccountCandidate> = {}): AccountCandidate {
  return {
    id,
    bankName: `Bank ${id}`,
    holderName: `Holder ${id}`,
    iban: `TR${String(id).padStart(24, "0")}`,
    minAmount: null,
    maxAmount: null,
    active: true,
    lastAssignedAt: 0,
    ...overrides,
  };
}

/** Runs `picks` deposits, writing the assignment time back after each one, and counts per account. */
function simulate(
  pool: AccountCandidate[],
  picks: number,
  amount: number,
  clock: (i: number) => number,
): Map<number, number> {
  const counts = new Map<number, number>(pool.map((a) => [a.id, 0]));
  for (let i = 0; i < picks; i++) {
    const picked = pickAccount(pool, amount);
    if (picked === null) throw new Error("no account picked");
    counts.set(picked.id, (counts.get(picked.id) ?? 0) + 1);
    picked.lastAssignedAt = rotationStamp(pool, clock(i));
  }
  return counts;
}

describe("isEligible", () => {
  it("refuses an inactive account", () => {
    expect(isEligible(account(1, { active: false }), 100)).toBe(false);
  });

  it("respects min and max inclusively", () => {
    const a = account(1, { minAmount: 1_000, maxAmount: 5_000 });
    expect(isEligible(a, 999)).toBe(false);
    expect(isEligible(a, 1_000)).toBe(true);
    expect(isEligible(a, 5_000)).toBe(true);
    expect(isEligible(a, 5_001)).toBe(false);
  });

  it("treats null bounds as open", () => {
    expect(isEligible(account(1), 1)).toBe(true);
    expect(isEligible(account(1), 99_999_999_999)).toBe(true);
    expect(isEligible(account(1, { minAmount: 100 }), 99_999_999_999)).toBe(true);
    expect(isEligible(account(1, { maxAmount: 100 }), 1)).toBe(true);
  });
});

describe("pickAccount", () => {
  it("returns null for an empty pool", () => {
    expect(pickAccount([], 100)).toBeNull();
  });

  it("picks the least recently assigned account", () => {
    const pool = [
      account(1, { lastAssignedAt: 300 }),
      account(2, { lastAssignedAt: 100 }),
      account(3, { lastAssignedAt: 200 }),
    ];
    expect(pickAccount(pool, 100)?.id).toBe(2);
  });

  it("breaks ties by the lower id, whatever the input order", () => {
    const pool = [
      account(7, { lastAssignedAt: 5 }),
      account(3, { lastAssignedAt: 5 }),
      account(9, { lastAssignedAt: 5 }),
    ];
    expect(pickAccount(pool, 100)?.id).toBe(3);
    expect(pickAccount([...pool].reverse(), 100)?.id).toBe(3);
  });

  it("skips inactive and out-of-range accounts even when they are least recently used", () => {
    const pool = [
      account(1, { lastAssignedAt: 0, active: false }),
      account(2, { lastAssignedAt: 1, minAmount: 50_000 }),
      account(3, { lastAssignedAt: 2, maxAmount: 1_000 }),
      account(4, { lastAssignedAt: 10 }),
    ];
    expect(pickAccount(pool, 10_000)?.id).toBe(4);
  });

  it("returns null when no account is eligible", () => {
    const pool = [
      account(1, { active: false }),
      account(2, { maxAmount: 100 }),
      account(3, { minAmount: 1_000_000 }),
    ];
    expect(pickAccount(pool, 10_000)).toBeNull();
  });

  it("returns the candidate object itself (bank, holder, IBAN intact)", () => {
    const a = account(1, {
      bankName: "Ziraat Bankası",
      holderName: "Ödeme A.Ş.",
      iban: "TR330006100519786457841326",
    });
    expect(pickAccount([a], 100)).toBe(a);
  });

  it("agrees with a brute-force minimum over (lastAssignedAt, id) among eligible accounts", () => {
    const candidate = fc.record({
      id: fc.integer({ min: 1, max: 1_000 }),
      lastAssignedAt: fc.integer({ min: 0, max: 20 }),
      active: fc.boolean(),
      minAmount: fc.option(fc.integer({ min: 1, max: 20_000 })),
      maxAmount: fc.option(fc.integer({ min: 1, max: 20_000 })),
    });
    fc.assert(
      fc.property(
        fc.uniqueArray(candidate, { selector: (c) => c.id, maxLength: 8 }),
        fc.integer({ min: 1, max: 20_000 }),
        (raw, amount) => {
          const pool = raw.map((c) => account(c.id, c));
          const eligible = pool.filter(
            (a) =>
              a.active &&
              (a.minAmount === null || amount >= a.minAmount) &&
              (a.maxAmount === null || amount <= a.maxAmount),
          );
          eligible.sort((a, b) => a.lastAssignedAt - b.lastAssignedAt || a.id - b.id);
          expect(pickAccount(pool, amount)?.id ?? null).toBe(eligible[0]?.id ?? null);
        },
      ),
    );
  });
});

describe("pickAccount fairness", () => {
  it.each([3, 4, 5])("1,000 picks over %i equal accounts differ by at most 1", (n) => {
    const pool = Array.from({ length: n }, (_, i) => account(10 + i));
    const counts = [...simulate(pool, 1_000, 15_000, (i) => 1_000 + i).values()];
    expect(counts.reduce((a, b) => a + b, 0)).toBe(1_000);
    expect(Math.max(...counts) - Math.min(...counts)).toBeLessThanOrEqual(1);
  });

  it("stays fair for any order, ids and common starting time", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 1, max: 10_000 }), { minLength: 3, maxLength: 5 }),
        fc.integer({ min: 0, max: 1_000_000 }),
        (ids, start) => {
          const pool = ids.map((id) => account(id, { lastAssignedAt: start }));
          const counts = [...simulate(pool, 1_000, 15_000, (i) => start + 1 + i).values()];
          expect(Math.max(...counts) - Math.min(...counts)).toBeLessThanOrEqual(1);
        },
      ),
      { numRuns: 50 },
    );
  });

  it("gives nothing to ineligible accounts and shares fairly among the rest", () => {
    const pool = [
      account(1),
      account(2, { active: false }),
      account(3),
      account(4, { maxAmount: 100 }),
      account(5),
    ];
    const counts = simulate(pool, 1_000, 15_000, (i) => 1 + i);
    expect(counts.get(2)).toBe(0);
    expect(counts.get(4)).toBe(0);
    const served = [counts.get(1), counts.get(3), counts.get(5)].map((c) => c ?? 0);
    expect(served.reduce((a, b) => a + b, 0)).toBe(1_000);
    expect(Math.max(...served) - Math.min(...served)).toBeLessThanOrEqual(1);
  });

  it("a newly added account (lastAssignedAt 0) is served next, then joins the rotation", () => {
    const pool = [account(1), account(2), account(3)];
    simulate(pool, 30, 15_000, (i) => 1 + i);
    pool.push(account(4));
    expect(pickAccount(pool, 15_000)?.id).toBe(4);
  });

  it("stays fair when several deposits share one millisecond (lastAssignedAt is created_at in ms)", () => {
    // Deposits within one millisecond must still rotate: the stamp always moves past every candidate's.
    // Here 4 sequential deposits arrive per millisecond.
    const pool = [account(1), account(2), account(3)];
    const counts = [...simulate(pool, 1_200, 15_000, (i) => 1_700_000_000_000 + Math.floor(i / 4)).values()];
    expect(Math.max(...counts) - Math.min(...counts)).toBeLessThanOrEqual(1);
  });
});

describe("routeOrder", () => {
  const acc = (id: number, over: Partial<AccountCandidate> = {}): AccountCandidate => ({
    id,
    bankName: `B${id}`,
    holderName: "H",
    iban: `TR${id}`,
    minAmount: null,
    maxAmount: null,
    active: true,
    lastAssignedAt: 0,
    ...over,
  });

  it("puts accounts whose bank or channel matches bank_code first, then rotation, then id", () => {
    const order = routeOrder(
      [
        acc(1, { lastAssignedAt: 5 }),
        acc(2, { preferFor: ["AKBANK"], lastAssignedAt: 9 }),
        acc(3, { lastAssignedAt: 1 }),
        acc(4, { preferFor: ["GARANTI", "AKBANK"], lastAssignedAt: 2 }),
        acc(5, { active: false, preferFor: ["AKBANK"] }),
        acc(6, { maxAmount: 10 }),
      ],
      15_000,
      " akbank ",
    );
    expect(order.map((a) => a.id)).toEqual([4, 2, 3, 1]);
  });

  it("rotates fairly over 1,000 deposits among equal accounts", () => {
    const pool = [acc(1), acc(2), acc(3), acc(4)];
    const counts = new Map<number, number>();
    for (let i = 0; i < 1_000; i++) {
      const first = routeOrder(pool, 100, "X")[0] as AccountCandidate;
      first.lastAssignedAt = rotationStamp(pool, 1_000);
      counts.set(first.id, (counts.get(first.id) ?? 0) + 1);
    }
    expect([...counts.values()]).toEqual([250, 250, 250, 250]);
  });
});

describe("daily caps", () => {
  const acc = (id: number, dailyCap: number | null): AccountCandidate => ({
    id,
    bankName: "B",
    holderName: "H",
    iban: "TR",
    minAmount: null,
    maxAmount: null,
    active: true,
    lastAssignedAt: 0,
    dailyCap,
  });

  it("keeps an account while today's volume plus this deposit stays within its cap", () => {
    const order = [acc(1, 20_000), acc(2, null), acc(3, 10_000)];
    const taken = new Map([
      [1, { total: 5_000, firm: 0 }],
      [3, { total: 9_000, firm: 0 }],
    ]);
    expect(withinDailyCap(order, taken, 15_000).map((a) => a.id)).toEqual([1, 2]);
    expect(withinDailyCap(order, taken, 15_001).map((a) => a.id)).toEqual([2]);
    expect(withinDailyCap(order, new Map(), 10_000).map((a) => a.id)).toEqual([1, 2, 3]);
  });

  it("keeps an account for a firm while its own deposits stay within its share of the cap", () => {
    const order = [acc(1, 20_000), acc(2, null), acc(3, 10_000)];
    // The firm took 4,000 of account 1 (others 1,000 more) and 4,000 of account 3.
    const taken = new Map([
      [1, { total: 5_000, firm: 4_000 }],
      [3, { total: 4_000, firm: 4_000 }],
    ]);
    // Half of each cap: 10,000 of account 1, 5,000 of account 3; an uncapped account has no share.
    expect(withinDailyCap(order, taken, 1_000, 50).map((a) => a.id)).toEqual([1, 2, 3]);
    expect(withinDailyCap(order, taken, 1_001, 50).map((a) => a.id)).toEqual([1, 2]);
    expect(withinDailyCap(order, taken, 6_001, 50).map((a) => a.id)).toEqual([2]);
    expect(withinDailyCap(order, taken, 6_001, null).map((a) => a.id)).toEqual([1, 2]);
  });

  it("days start at midnight in Türkiye (UTC+3)", () => {
    expect(new Date(startOfTurkeyDay(Date.UTC(2026, 10, 22, 20, 59))).toISOString()).toBe(
      "2026-11-21T21:00:00.000Z",
    );
    expect(new Date(startOfTurkeyDay(Date.UTC(2026, 10, 22, 21, 0))).toISOString()).toBe(
      "2026-11-22T21:00:00.000Z",
    );
    expect(new Date(startOfTurkeyDay(Date.UTC(2026, 10, 22, 2, 0))).toISOString()).toBe(
      "2026-11-21T21:00:00.000Z",
    );
  });
});
