import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isValidTurkishIban, turkishIbanFor } from "../../src/domain/iban.js";

/** Independent ISO 13616 check digits for a Turkish BBAN (22 digits), using BigInt. */
function turkishIban(bban: string): string {
  // "TR" -> T=29, R=27; check digits placeholder "00" moved to the end.
  const remainder = BigInt(`${bban}292700`) % 97n;
  const check = String(98n - remainder).padStart(2, "0");
  return `TR${check}${bban}`;
}

const bban = fc.stringMatching(/^\d{22}$/);

describe("turkishIbanFor", () => {
  it("gives the check digits the independent helper gives, for any account part", () => {
    fc.assert(
      fc.property(bban, (b) => {
        expect(turkishIbanFor(b)).toBe(turkishIban(b));
      }),
    );
  });

  it("refuses an account part that is not 22 digits", () => {
    expect(() => turkishIbanFor("123")).toThrow("22 digits");
  });
});

describe("isValidTurkishIban", () => {
  it("accepts the known-valid TR330006100519786457841326", () => {
    expect(isValidTurkishIban("TR330006100519786457841326")).toBe(true);
  });

  it("the independent helper reproduces the known IBAN", () => {
    expect(turkishIban("0006100519786457841326")).toBe("TR330006100519786457841326");
  });

  it("accepts spaces, tabs, dashes and lower case", () => {
    expect(isValidTurkishIban("TR33 0006 1005 1978 6457 8413 26")).toBe(true);
    expect(isValidTurkishIban("  TR330006100519786457841326  ")).toBe(true);
    expect(isValidTurkishIban("tr330006100519786457841326")).toBe(true);
    expect(isValidTurkishIban("TR33-0006-1005-1978-6457-8413-26")).toBe(true);
  });

  it("accepts any TR IBAN with correct mod-97 check digits", () => {
    fc.assert(
      fc.property(bban, (b) => {
        expect(isValidTurkishIban(turkishIban(b))).toBe(true);
      }),
    );
  });

  it("rejects a wrong checksum", () => {
    expect(isValidTurkishIban("TR340006100519786457841326")).toBe(false);
    expect(isValidTurkishIban("TR330006100519786457841327")).toBe(false);
    expect(isValidTurkishIban("TR000006100519786457841326")).toBe(false);
  });

  it("rejects every single-digit substitution of a valid IBAN", () => {
    fc.assert(
      fc.property(bban, fc.nat(23), fc.integer({ min: 1, max: 9 }), (b, index, delta) => {
        const iban = turkishIban(b);
        const pos = 2 + index; // one of the 24 digits
        const digit = (Number(iban[pos]) + delta) % 10;
        const broken = iban.slice(0, pos) + String(digit) + iban.slice(pos + 1);
        expect(isValidTurkishIban(broken)).toBe(false);
      }),
    );
  });

  it("rejects swapping two different adjacent digits", () => {
    fc.assert(
      fc.property(bban, fc.nat(22), (b, index) => {
        const iban = turkishIban(b);
        const pos = 2 + index;
        fc.pre(iban[pos] !== iban[pos + 1]);
        const swapped = iban.slice(0, pos) + iban[pos + 1] + iban[pos] + iban.slice(pos + 2);
        expect(isValidTurkishIban(swapped)).toBe(false);
      }),
    );
  });

  it("rejects non-TR IBANs even when their own checksum is right", () => {
    expect(isValidTurkishIban("DE89370400440532013000")).toBe(false);
    expect(isValidTurkishIban("GB82WEST12345698765432")).toBe(false);
  });

  it("rejects the wrong length or non-digits after TR", () => {
    expect(isValidTurkishIban("TR33000610051978645784132")).toBe(false);
    expect(isValidTurkishIban("TR3300061005197864578413260")).toBe(false);
    expect(isValidTurkishIban("TR33000610051978645784132A")).toBe(false);
    expect(isValidTurkishIban("")).toBe(false);
    expect(isValidTurkishIban("TR")).toBe(false);
    expect(isValidTurkishIban("not-an-iban")).toBe(false);
  });
});
