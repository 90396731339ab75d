import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ibanInNarrative, senderInNarrative } from "../../src/reconciliation/narrative.js";

/** The sender in Turkish banks' free-text MT940 narratives (reconciliation/narrative.ts). */
describe("the sender in a free-text narrative", () => {
  it.each([
    ["FAST GELEN AHMET YILMAZ TR12 0006 4000 0011 2345 6789 01 ODEME K7M3PX", "AHMET YILMAZ"],
    ["HAVALE GONDEREN: AYŞE NUR KAYA ACIKLAMA: yatırım", "AYŞE NUR KAYA"],
    ["EFT GELEN-GÖND.: MEHMET ÖZ SORGU NO 12345", "MEHMET ÖZ"],
    ["GELEN FAST ŞÜKRÜ ÖZTÜRK 150,00 TL", "ŞÜKRÜ ÖZTÜRK"],
    ["gönderen: zeynep koç / açıklama: ödeme", "zeynep koç"],
  ])("%s → %s", (text, name) => {
    expect(senderInNarrative(text)).toBe(name);
  });

  it.each([
    "EFT MASRAFI",
    "ODEME PK3X",
    // A name with no label before it may be the recipient's: no guess.
    "AHMET YILMAZ ODEME",
    "ALICI: ODEME HIZMETLERI AS",
    // One word is no name.
    "FAST GELEN AHMET 12345",
  ])("no sender in %s", (text) => {
    expect(senderInNarrative(text)).toBeNull();
  });

  it("never names more than five words, nor a word with a digit, nor throws", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (tail) => {
        const name = senderInNarrative(`FAST GELEN ${tail}`);
        if (name === null) return;
        const words = name.split(" ");
        expect(words.length).toBeGreaterThanOrEqual(2);
        expect(words.length).toBeLessThanOrEqual(5);
        for (const w of words) expect(w).not.toMatch(/\d/);
      }),
      { numRuns: 500 },
    );
  });

  it("an IBAN written spaced or not", () => {
    expect(ibanInNarrative("FAST GELEN A B TR12 0006 4000 0011 2345 6789 01 X")).toBe(
      "TR120006400000112345678901",
    );
    expect(ibanInNarrative("tr120006400000112345678901")).toBe("TR120006400000112345678901");
    expect(ibanInNarrative("TR12 0006")).toBeNull();
  });
});
