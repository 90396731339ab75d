import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { maskIban, maskNationalId } from "../../src/domain/masking.js";

describe("maskNationalId", () => {
  it.each([
    ["12345678901", "12***01"],
    ["123456", "12***56"],
    ["1234567", "12***67"],
    ["AB12CD34", "AB***34"],
  ])("%s -> %s", (input, masked) => {
    expect(maskNationalId(input)).toBe(masked);
  });

  it.each([["12345"], ["1234"], ["12"], ["1"], [""]])("shorter than 6 (%s) -> ***", (input) => {
    expect(maskNationalId(input)).toBe("***");
  });

  it("counts characters as code points", () => {
    expect(maskNationalId("😀😀😀😀😀")).toBe("***");
    expect(maskNationalId("😀1234😀")).toBe("😀1***4😀");
  });

  it("never reveals more than the first 2 and last 2 characters", () => {
    fc.assert(
      fc.property(fc.stringMatching(/^\d{6,20}$/), (id) => {
        const masked = maskNationalId(id);
        expect(masked).toBe(`${id.slice(0, 2)}***${id.slice(-2)}`);
        expect(masked).toHaveLength(7);
      }),
    );
  });
});

describe("maskIban", () => {
  it("keeps the country code and the last 4 characters", () => {
    expect(maskIban("TR330006100519786457841326")).toBe("TR**1326");
    expect(maskIban("TR33 0006 1005 1978 6457 8413 26")).toBe("TR**1326");
  });

  it("hides short values completely", () => {
    expect(maskIban("TR3300")).toBe("****");
    expect(maskIban("")).toBe("****");
  });
});
