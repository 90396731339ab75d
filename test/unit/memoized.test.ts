import { describe, expect, it } from "vitest";
import { memoized } from "../../src/crypto/memoized.js";

describe("memoized", () => {
  it("computes each key once, and starts afresh once it outgrows its bound", () => {
    const computed: string[] = [];
    const upper = memoized((key) => {
      computed.push(key);
      return key.toUpperCase();
    }, 2);
    expect([upper("a"), upper("a"), upper("b"), upper("a")]).toEqual(["A", "A", "B", "A"]);
    expect(computed).toEqual(["a", "b"]);
    // A third key empties the two remembered ones: "a" is computed again.
    expect(upper("c")).toBe("C");
    expect(upper("a")).toBe("A");
    expect(computed).toEqual(["a", "b", "c", "a"]);
  });
});
