import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { formatMinor, MAX_AMOUNT_MINOR, parseAmount } from "../../src/domain/money.js";
import { bareAmount, dottedThousands, readAmount } from "../../src/payment-page/browser/amount.js";

// The reading of a typed amount that the payment page and the console share.
describe("readAmount", () => {
  it.each([
    ["250", "250"],
    ["250,5", "250.5"],
    ["250.50", "250.50"],
    ["1.500,50", "1500.50"],
    ["1.500,5", "1500.5"],
    ["1.500.000", "1500000"],
    ["12.345.678,90", "12345678.90"],
    [" 1 500 ", "1500"],
    ["150 TL", "150"],
    ["TL 150", "150"],
    ["tl150,00", "150.00"],
    ["₺1.250,50", "1250.50"],
    ["1.250,50₺", "1250.50"],
    ["0150", "150"],
    ["0,01", "0.01"],
    ["999999999,99", "999999999.99"],
  ])("reads %j as %j", (typed, api) => {
    expect(readAmount(typed)).toBe(api);
  });

  it.each([
    ["1.500", "a thousands dot, or three decimals?"],
    ["12,345", "a thousands comma, or three decimals?"],
    ["1,500.50", "English grouping: a comma before the point"],
    ["1.50.000", "a group of two digits"],
    ["1.5000", "a group of four digits"],
    ["1.500.00", "dots only, the last group of two"],
    ["1500,505", "three decimals"],
    ["0", "zero"],
    ["0,00", "zero"],
    ["-5", "below zero"],
    ["1000000000", "ten whole digits"],
    ["", "nothing"],
    ["TL", "only the currency"],
    ["abc", "no digits"],
    ["1e3", "an exponent"],
    ["0.500.000", "a first group of 0"],
    ["0.500,00", "a first group of 0"],
    ["00.500,00", "a first group of 0"],
  ])("does not read %j (%s)", (typed) => {
    expect(readAmount(typed)).toBeNull();
  });

  it("asks about exactly one thousands dot with no decimals", () => {
    expect(dottedThousands("1.500")).toBe(true);
    expect(dottedThousands("1.500 TL")).toBe(true);
    expect(dottedThousands("1.500.000")).toBe(false); // read, not asked about
    expect(dottedThousands("1.500,00")).toBe(false);
    expect(dottedThousands("0.500")).toBe(false); // three decimals, not a thousand: refused as such
    expect(bareAmount(" ₺ 1.500 ")).toBe("1.500");
  });

  it("reads every amount back from its Turkish and its plain writing", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: MAX_AMOUNT_MINOR }), (minor) => {
        const api = formatMinor(minor); // "1500.50"
        const [whole = "", cents = ""] = api.split(".");
        const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ".");
        expect(readAmount(`${grouped},${cents}`)).toBe(api);
        expect(readAmount(`${grouped},${cents} TL`)).toBe(api);
        expect(readAmount(`${whole},${cents}`)).toBe(api);
        expect(readAmount(api)).toBe(api);
        // Without decimals: read unless it is the one ambiguous shape.
        const plain = readAmount(grouped);
        if (minor >= 100) expect(plain).toBe(dottedThousands(grouped) ? null : whole);
      }),
    );
  });

  it("reads nothing the API's amount parser would refuse", () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[\d.,\s]{0,16}(TL|₺)?$/), (typed) => {
        const api = readAmount(typed);
        if (api !== null) expect(parseAmount(api).ok).toBe(true);
      }),
    );
  });
});
