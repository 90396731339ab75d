import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { nameWords, payerNameKey } from "../../src/domain/name-search.js";

describe("payer names folded for search", () => {
  it("reads a name as bank statements and operators write it", () => {
    expect(nameWords("Şükrü Öztürk")).toEqual(["sukru", "ozturk"]);
    expect(nameWords("SUKRU OZTURK")).toEqual(["sukru", "ozturk"]);
    expect(nameWords("İSMAİL IŞIK")).toEqual(["ismail", "isik"]);
    expect(nameWords("ismail ışık")).toEqual(["ismail", "isik"]);
    expect(nameWords("Ayşe-Nur O'Neil  Çağ.")).toEqual(["ayse", "nur", "o", "neil", "cag"]);
    // Decomposed input folds as precomposed does; other scripts keep their letters, less marks
    // (й is и with a breve), alike in the key and in the search.
    expect(nameWords("Gu\u0308l")).toEqual(["gul"]);
    expect(nameWords("Дмитрий")).toEqual(["дмитрии"]);
    expect(nameWords(" - . ")).toEqual([]);
    // Letters whose capitals only their compatibility form shows fold to lower case too.
    expect(nameWords("𝐀𝐲𝐬𝐞 ℌasan")).toEqual(["ayse", "hasan"]);
  });

  it("keys the whole name, each word after a space", () => {
    expect(payerNameKey("Şükrü", null, "Öztürk")).toBe(" sukru ozturk");
    expect(payerNameKey("Ali", "Can", "Veli")).toBe(" ali can veli");
  });

  it("never puts a LIKE wildcard or an empty word in a key or a search", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", maxLength: 40 }), (text) => {
        for (const word of nameWords(text)) {
          expect(word).not.toBe("");
          expect(word).not.toMatch(/[%_\\\s]/);
          // Lower case, as both stores' LIKE then agree.
          expect(word).toBe(word.toLowerCase());
        }
      }),
    );
  });
});
