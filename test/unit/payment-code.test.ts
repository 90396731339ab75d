import { randomBytes } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  CODE_ALPHABET,
  CODE_LENGTH,
  createPaymentCodes,
  isPaymentCode,
  keyedPaymentCode,
  legacyPaymentCode,
  oneOff,
  oneOffKeys,
} from "../../src/domain/payment-code.js";

/**
 * Payment codes keyed by the store's secret (docs/adr/0015-keyed-payment-codes.md): unknown
 * without the key, stable under it, and the keyless code kept for the deposits made before.
 */
/** Ids 1, 2, 3 and 1,000,000 as the version before keyed codes coded them (its paymentCodeFor). */
const LEGACY_CODES = ["97RH9PWJ", "FHKHYY64", "ETJ36NJM", "34HAXCR4"];
const keyArb = fc.uint8Array({ minLength: 32, maxLength: 32 }).map((a) => Buffer.from(a));
const idArb = fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER });

describe("keyed payment codes", () => {
  it("are well-formed: eight characters of the alphabet with their check character", () => {
    fc.assert(
      fc.property(keyArb, idArb, (key, id) => {
        const code = keyedPaymentCode(key, id);
        expect(code).toHaveLength(CODE_LENGTH);
        for (const c of code) expect(CODE_ALPHABET).toContain(c);
        expect(isPaymentCode(code)).toBe(true);
        expect(isPaymentCode(legacyPaymentCode(id))).toBe(true);
      }),
      { numRuns: 2_000 },
    );
  });

  it("are the same for the same key and id, every time and from every PaymentCodes built with them", () => {
    const key = randomBytes(32);
    const a = createPaymentCodes({ key, legacyThrough: 0 });
    const b = createPaymentCodes({ key: Buffer.from(key), legacyThrough: 0 });
    for (let id = 1; id <= 500; id++) {
      expect(a.of(id)).toBe(a.of(id));
      expect(b.of(id)).toBe(a.of(id));
    }
  });

  it("differ from key to key, and from the keyless formula", () => {
    const one = createPaymentCodes({ key: randomBytes(32), legacyThrough: 0 });
    const two = createPaymentCodes({ key: randomBytes(32), legacyThrough: 0 });
    let sameAcrossKeys = 0;
    let sameAsKeyless = 0;
    for (let id = 1; id <= 2_000; id++) {
      if (one.of(id) === two.of(id)) sameAcrossKeys++;
      if (one.of(id) === legacyPaymentCode(id)) sameAsKeyless++;
    }
    // Unrelated codes agree once in 1.28 billion: any agreement here is the key left out.
    expect(sameAcrossKeys).toBe(0);
    expect(sameAsKeyless).toBe(0);
  });

  it("keep the keyless code for ids up to the cutover, and the keyed one after it", () => {
    const key = randomBytes(32);
    const codes = createPaymentCodes({ key, legacyThrough: 1_000 });
    for (const id of [1, 2, 999, 1_000]) expect(codes.of(id)).toBe(legacyPaymentCode(id));
    for (const id of [1_001, 1_002, 50_000]) {
      expect(codes.of(id)).toBe(keyedPaymentCode(key, id));
      expect(codes.of(id)).not.toBe(legacyPaymentCode(id));
    }
  });

  it("the keyless code is what earlier versions showed (a deposit's code never changes)", () => {
    expect([1, 2, 3, 1_000_000].map(legacyPaymentCode)).toEqual(LEGACY_CODES);
  });

  it("spread over the alphabet: every character in every place, none far from its share", () => {
    const key = randomBytes(32);
    const counts = Array.from({ length: CODE_LENGTH - 1 }, () => new Map<string, number>());
    const ids = 40_000;
    for (let id = 1; id <= ids; id++) {
      const code = keyedPaymentCode(key, id);
      for (let p = 0; p < CODE_LENGTH - 1; p++)
        counts[p]?.set(code[p] as string, (counts[p]?.get(code[p] as string) ?? 0) + 1);
    }
    const share = ids / CODE_ALPHABET.length;
    for (const place of counts) {
      expect(place.size).toBe(CODE_ALPHABET.length);
      // 2,000 expected per character, give or take 44 (one standard deviation): 300 is seven.
      for (const n of place.values()) expect(Math.abs(n - share)).toBeLessThan(300);
    }
  });

  it("need a 32-byte key", () => {
    expect(() => createPaymentCodes({ key: randomBytes(16), legacyThrough: 0 })).toThrow(/32 bytes/);
  });
});

describe("near codes by their one-off keys", () => {
  it("two different codes share a key exactly when they differ in one place", () => {
    const alphabet = fc.constantFrom(...CODE_ALPHABET);
    const code = fc
      .array(alphabet, { minLength: CODE_LENGTH, maxLength: CODE_LENGTH })
      .map((c) => c.join(""));
    fc.assert(
      fc.property(code, code, fc.nat({ max: CODE_LENGTH - 1 }), alphabet, (a, b, at, ch) => {
        // Half the pairs one place apart, so that both answers are tried often.
        const other = at % 2 === 0 ? b : `${a.slice(0, at)}${ch}${a.slice(at + 1)}`;
        if (other === a) return;
        const keys = new Set(oneOffKeys(a));
        expect(oneOffKeys(other).some((k) => keys.has(k))).toBe(oneOff(a, other));
      }),
    );
  });
});
