import { describe, expect, it } from "vitest";
import { createCallbackTargetCheck } from "../../src/net/callback-target.js";

describe("callback target check at creation", () => {
  it("refuses names that resolve to private addresses, allows public ones", async () => {
    const check = createCallbackTargetCheck({
      allowPrivate: false,
      resolve: async (host) => [{ address: host === "inside.example" ? "10.0.0.7" : "93.184.215.14" }],
    });
    expect(await check("https://inside.example/cb")).toBe(false);
    expect(await check("https://merchant.example/cb")).toBe(true);
    expect(await check("https://127.0.0.1/cb")).toBe(false);
  });

  it("does not wait for a resolver that hangs, and deposits naming the host at once share one lookup", async () => {
    let lookups = 0;
    const check = createCallbackTargetCheck({
      allowPrivate: false,
      lookupTimeoutMs: 100,
      resolve: () => {
        lookups++;
        return new Promise(() => {});
      },
    });
    const started = Date.now();
    // Before: each waited for the resolver (up to its own timeouts, seconds), each with its own lookup.
    const answers = await Promise.all(Array.from({ length: 20 }, () => check("https://slow-dns.example/cb")));
    expect(Date.now() - started).toBeLessThan(1_000);
    // Let through: the guard at send time judges the address actually connected to.
    expect(answers.every((a) => a)).toBe(true);
    expect(lookups).toBe(1);
    // Remembered for a minute: no new lookup.
    expect(await check("https://slow-dns.example/other")).toBe(true);
    expect(lookups).toBe(1);
  });
});
