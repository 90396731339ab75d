import { describe, expect, it } from "vitest";
import { planEachTime, prepared } from "../../src/store/engine/prepared.js";

describe("prepared statements for both stores", () => {
  it("turns $1 … $n into SQLite's positional placeholders", () => {
    const s = prepared("t", "SELECT a FROM t WHERE b = $1 AND c = $2 AND d = $3");
    expect(s.sqlite).toBe("SELECT a FROM t WHERE b = ? AND c = ? AND d = ?");
    expect(s.postgres).toBe("SELECT a FROM t WHERE b = $1 AND c = $2 AND d = $3");
    // Named and planned once per connection unless asked otherwise.
    expect(s.planEachTime).toBe(false);
    expect(prepared("u", "SELECT $1", planEachTime).planEachTime).toBe(true);
  });

  it("refuses a placeholder used twice or out of order, which positional binding would get wrong", () => {
    expect(() => prepared("t", "SELECT $1, $1")).toThrow(/out of order/);
    expect(() => prepared("t", "SELECT $2, $1")).toThrow(/out of order/);
  });
});
