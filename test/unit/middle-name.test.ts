import { describe, expect, it } from "vitest";
import { resolveMiddleName } from "../../src/domain/middle-name.js";

describe("resolveMiddleName", () => {
  it.each([
    ["Can", "Can"],
    ["  Can  ", "Can"],
    ["\tCan\n", "Can"],
    ["Mehmet Ali", "Mehmet Ali"],
    ["Jean-Luc", "Jean-Luc"],
    ["O'Neil", "O'Neil"],
    ["St. John", "St. John"],
    ["Ayşe", "Ayşe"],
    ["Çağrı", "Çağrı"],
    ["İlknur", "İlknur"],
    ["A", "A"],
    ["Nullah", "Nullah"],
    ["Yoksul", "Yoksul"],
    ["Nonez", "Nonez"],
  ])("keeps %j as %j", (input, expected) => {
    expect(resolveMiddleName(input)).toBe(expected);
  });

  it.each([
    "null",
    "NULL",
    "Null",
    "nUlL",
    "undefined",
    "UNDEFINED",
    "Undefined",
    "none",
    "NONE",
    "None",
    "yok",
    "Yok",
    "YOK",
    "  null  ",
    " Yok\t",
  ])("ignores the placeholder %j", (input) => {
    expect(resolveMiddleName(input)).toBeNull();
  });

  it("ignores the placeholders in Turkish-locale letter case too (UNDEFİNED, undefıned)", () => {
    // A client that upper- or lower-cases "undefined" with Turkish rules sends these.
    expect("undefined".toLocaleUpperCase("tr")).toBe("UNDEFİNED");
    expect("UNDEFINED".toLocaleLowerCase("tr")).toBe("undefıned");
    expect(resolveMiddleName("UNDEFİNED")).toBeNull();
    expect(resolveMiddleName("undefıned")).toBeNull();
  });

  it.each([[""], [" "], ["   "], ["\t\n "], ["\u00A0"], ["\u3000"]])(
    "treats empty or whitespace-only %j as not sent",
    (input) => {
      expect(resolveMiddleName(input)).toBeNull();
    },
  );

  it.each([[null], [undefined], [0], [42], [true], [false], [{}], [["Can"]]])(
    "ignores the non-string %j",
    (input) => {
      expect(resolveMiddleName(input)).toBeNull();
    },
  );

  it.each([["-"], ["."], ["'"], ["- ."], ["--"], ["..."]])("ignores %j: it has no letter", (input) => {
    expect(resolveMiddleName(input)).toBeNull();
  });

  it.each([["Can2"], ["C@n"], ["Can_Ali"], ["Can\u0000"], ["Can\u200B"], ["😀"], ["Can<b>"]])(
    "ignores %j: characters outside the name set",
    (input) => {
      expect(resolveMiddleName(input)).toBeNull();
    },
  );

  it("accepts up to 50 chars after trimming and ignores longer ones", () => {
    expect(resolveMiddleName("a".repeat(50))).toBe("a".repeat(50));
    expect(resolveMiddleName(`   ${"a".repeat(50)}   `)).toBe("a".repeat(50));
    expect(resolveMiddleName("a".repeat(51))).toBeNull();
    expect(resolveMiddleName(` ${"a".repeat(51)} `)).toBeNull();
  });

  it("counts the 50 in code points", () => {
    const astral = "𝒜"; // a letter outside the BMP
    expect(resolveMiddleName(astral.repeat(50))).toBe(astral.repeat(50));
    expect(resolveMiddleName(astral.repeat(51))).toBeNull();
    expect(resolveMiddleName("ş".repeat(50))).toBe("ş".repeat(50));
  });
});
