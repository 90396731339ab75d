import { getHeapStatistics, setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import { heapBudget } from "../../src/reconciliation/heap-budget.js";

const MB = 1024 * 1024;
const used = () => getHeapStatistics().used_heap_size;

describe("heap budget of a long import", () => {
  it("asks for one collection once the heap has grown by the budget, and the garbage goes", async () => {
    // The worker runs other files before this one (vitest's isolate: false): their garbage, if
    // collected while this test allocates, would hide its growth. Collected first, the heap's
    // growth is this test's own.
    setFlagsFromString("--expose-gc");
    (runInNewContext("gc") as () => void)();
    const budget = heapBudget(16 * MB);
    expect(budget.check()).toBe(false);
    // About 40 MB of objects, kept while the budget is checked, then dropped.
    let junk: { i: number; s: string }[] | null = Array.from({ length: 600_000 }, (_, i) => ({
      i,
      s: `line ${i}`,
    }));
    const grown = used();
    expect(junk.length).toBe(600_000);
    junk = null;
    expect(budget.check()).toBe(true);
    // One collection at a time: a check while it runs asks for none.
    expect(budget.check()).toBe(false);
    await expect.poll(() => budget.collections, { timeout: 10_000 }).toBe(1);
    expect(used()).toBeLessThan(grown - 16 * MB);
    expect(budget.check()).toBe(false);
  });
});
