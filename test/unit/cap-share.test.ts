import { describe, expect, it } from "vitest";
import { capShareFor, sharedWithOthers, shareOf } from "../../src/domain/cap-share.js";
import { type AccountCandidate, withinDailyCap } from "../../src/routing/account-order.js";

describe("a firm's share of an account's daily cap", () => {
  it("is the default share while another live firm shares the account, the whole cap alone", () => {
    expect(capShareFor(null, 50, true)).toBe(50);
    expect(capShareFor(null, 50, false)).toBeNull();
    // The default set to 100: the whole cap, shared or not.
    expect(capShareFor(null, 100, true)).toBe(100);
  });

  it("is the firm's own share when the admin set one, shared or not; 100 is the whole cap", () => {
    expect(capShareFor(30, 50, true)).toBe(30);
    expect(capShareFor(30, 50, false)).toBe(30);
    expect(capShareFor(80, 50, true)).toBe(80);
    expect(capShareFor(100, 50, true)).toBe(100);
    expect(shareOf(50_000_00, 100)).toBe(50_000_00);
  });

  it("counts an account as shared when a live firm other than the depositing one exists", () => {
    expect(sharedWithOthers(new Set([1]), 1)).toBe(false);
    expect(sharedWithOthers(new Set(), 1)).toBe(false);
    expect(sharedWithOthers(new Set([1, 2]), 1)).toBe(true);
    // A firm not among the live ones (switched off a moment ago) shares with whoever is.
    expect(sharedWithOthers(new Set([2]), 1)).toBe(true);
  });

  it("is whole minor units, rounded down; null is the whole cap", () => {
    expect(shareOf(50_000_00, 50)).toBe(25_000_00);
    expect(shareOf(99, 50)).toBe(49);
    expect(shareOf(1, 1)).toBe(0);
    expect(shareOf(12_345, null)).toBe(12_345);
  });

  it("stops a firm's 1,000 TL deposits at half of two 50,000 TL accounts and leaves the rest to the others", () => {
    const account = (id: number): AccountCandidate => ({
      id,
      bankName: "B",
      holderName: "H",
      iban: "TR",
      minAmount: null,
      maxAmount: null,
      active: true,
      lastAssignedAt: 0,
      dailyCap: 50_000_00,
    });
    const order = [account(1), account(2)];
    const share = capShareFor(null, 50, sharedWithOthers(new Set([1, 2]), 1));
    // Firm 1 took 25,000 TL of account 1 and 24,000 TL of account 2.
    const firm1 = new Map([
      [1, { total: 25_000_00, firm: 25_000_00 }],
      [2, { total: 24_000_00, firm: 24_000_00 }],
    ]);
    expect(withinDailyCap(order, firm1, 1_000_00, share).map((a) => a.id)).toEqual([2]);
    const firm1Full = new Map([...firm1, [2, { total: 25_000_00, firm: 25_000_00 }]]);
    expect(withinDailyCap(order, firm1Full, 1_000_00, share)).toEqual([]);
    // Firm 2's 10 TL: its own part is nothing, both accounts have room.
    const firm2 = new Map([
      [1, { total: 25_000_00, firm: 0 }],
      [2, { total: 25_000_00, firm: 0 }],
    ]);
    expect(withinDailyCap(order, firm2, 10_00, share).map((a) => a.id)).toEqual([1, 2]);
    // Alone, firm 1 fills both caps.
    const alone = capShareFor(null, 50, sharedWithOthers(new Set([1]), 1));
    expect(withinDailyCap(order, firm1Full, 25_000_00, alone).map((a) => a.id)).toEqual([1, 2]);
  });
});
