import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { formatMinor, MAX_AMOUNT_MINOR, parseAmount } from "../../src/domain/money.js";

describe("parseAmount", () => {
  it.each([
    ["150", 15_000],
    ["150.5", 15_050],
    ["150.50", 15_050],
    ["0.01", 1],
    ["0.1", 10],
    ["1", 100],
    ["999999999.99", 99_999_999_999],
  ])("accepts %j as %d minor units", (text, minor) => {
    expect(parseAmount(text)).toEqual({ ok: true, minor });
  });

  it.each([
    ["", "format"],
    ["abc", "format"],
    ["-1", "positive"],
    ["-0.50", "positive"],
    ["-99999999999", "positive"],
    ["-1.234", "decimals"],
    ["--1", "format"],
    ["-", "format"],
    ["+1", "format"],
    [" 1", "format"],
    ["1 ", "format"],
    ["1,50", "format"],
    ["1e3", "format"],
    ["0x10", "format"],
    ["Infinity", "format"],
    ["NaN", "format"],
    ["1.2.3", "format"],
    ["١٢٣", "format"],
    ["１２", "format"],
    ["1.234", "decimals"],
    ["1.230", "decimals"],
    ["0", "positive"],
    ["0.00", "positive"],
    ["000", "positive"],
    ["1000000000", "max"],
    ["1000000000.00", "max"],
    ["99999999999999999999", "max"],
  ] as const)("rejects %j (%s)", (text, rule) => {
    expect(parseAmount(text)).toEqual({ ok: false, rule });
  });

  it("the maximum is exactly 999999999.99", () => {
    expect(MAX_AMOUNT_MINOR).toBe(99_999_999_999);
    expect(parseAmount("999999999.99").ok).toBe(true);
    expect(parseAmount("1000000000.00").ok).toBe(false);
  });

  it("leading zeros do not change the value", () => {
    expect(parseAmount("0000000150.50")).toEqual({ ok: true, minor: 15_050 });
  });

  it("parses every whole.fraction string exactly, without floating point drift", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 999_999_999 }),
        fc.integer({ min: 0, max: 99 }),
        (whole, cents) => {
          fc.pre(whole > 0 || cents > 0);
          const text = `${whole}.${String(cents).padStart(2, "0")}`;
          expect(parseAmount(text)).toEqual({ ok: true, minor: whole * 100 + cents });
        },
      ),
    );
  });

  it("never accepts more than 2 fractional digits", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 999_999_999 }),
        fc.stringMatching(/^\d{3,8}$/),
        (whole, fraction) => {
          expect(parseAmount(`${whole}.${fraction}`)).toEqual({ ok: false, rule: "decimals" });
        },
      ),
    );
  });

  it("any accepted value is an integer number of minor units within 1..MAX", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 16 }), (text) => {
        const r = parseAmount(text);
        if (r.ok) {
          expect(Number.isSafeInteger(r.minor)).toBe(true);
          expect(r.minor).toBeGreaterThanOrEqual(1);
          expect(r.minor).toBeLessThanOrEqual(MAX_AMOUNT_MINOR);
        }
      }),
    );
  });
});

describe("formatMinor", () => {
  it.each([
    [15_000, "150.00"],
    [15_050, "150.50"],
    [1, "0.01"],
    [10, "0.10"],
    [100, "1.00"],
    [0, "0.00"],
    [99_999_999_999, "999999999.99"],
  ])("formats %d as %s", (minor, text) => {
    expect(formatMinor(minor)).toBe(text);
  });

  it("always writes exactly 2 decimals", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: MAX_AMOUNT_MINOR }), (minor) => {
        expect(formatMinor(minor)).toMatch(/^(0|[1-9]\d*)\.\d{2}$/);
      }),
    );
  });

  it("round-trips through parseAmount for every amount 1..99999999999", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: MAX_AMOUNT_MINOR }), (minor) => {
        expect(parseAmount(formatMinor(minor))).toEqual({ ok: true, minor });
      }),
      { numRuns: 2000 },
    );
  });

  it("round-trips the edges", () => {
    for (const minor of [1, 9, 10, 99, 100, 101, 999, MAX_AMOUNT_MINOR - 1, MAX_AMOUNT_MINOR]) {
      expect(parseAmount(formatMinor(minor))).toEqual({ ok: true, minor });
    }
  });
});
