import { lookup } from "node:dns/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  dummyHash,
  HASH_COST,
  hashPassword,
  newPassword,
  setHashCost,
  verifyPassword,
} from "../../src/operators/passwords.js";

describe("operator passwords", () => {
  // The service's cost: a server started earlier in this worker may have lowered it for its tests.
  let before = HASH_COST;
  beforeAll(() => {
    before = setHashCost(HASH_COST);
  });
  afterAll(() => {
    setHashCost(before);
  });

  it("hashes with scrypt and a fresh salt; verifies only the right password", async () => {
    const a = await hashPassword("correct horse battery");
    const b = await hashPassword("correct horse battery");
    expect(a).toMatch(/^scrypt\$32768\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    expect(a).not.toBe(b);
    expect(await verifyPassword("correct horse battery", a)).toBe(true);
    expect(await verifyPassword("correct horse batterY", a)).toBe(false);
    expect(await verifyPassword("", a)).toBe(false);
  });

  it("never throws on stored values that are not ours", async () => {
    for (const stored of [
      "",
      "plain",
      "scrypt$",
      "scrypt$1$8$1$x$y",
      "bcrypt$x",
      "scrypt$999999999999$8$1$AA$AA",
    ]) {
      expect(await verifyPassword("x", stored)).toBe(false);
    }
  });

  it("an unknown email is checked against a hash of the cost in force, made once per cost", async () => {
    const full = await dummyHash();
    expect(full).toMatch(/^scrypt\$32768\$/);
    expect(await dummyHash()).toBe(full);
    setHashCost(1024);
    try {
      expect(await dummyHash()).toMatch(/^scrypt\$1024\$/);
      // A hash keeps its own cost: one made at the lower cost still verifies at the higher.
      const low = await hashPassword("correct horse battery");
      setHashCost(HASH_COST);
      expect(await verifyPassword("correct horse battery", low)).toBe(true);
    } finally {
      setHashCost(HASH_COST);
    }
    expect(await dummyHash()).toBe(full);
  });

  it("one-time passwords are 24 URL-safe characters and differ", () => {
    const p = newPassword();
    expect(p).toMatch(/^[A-Za-z0-9_-]{24}$/);
    expect(newPassword()).not.toBe(p);
  });

  it("a burst of checks leaves libuv's thread pool to DNS lookups (channel asks, callbacks)", async () => {
    // As sign-ins from many addresses at once make them: each a scrypt on the thread pool. Before,
    // all of them queued there, and a lookup waited behind every one (18 s behind 200).
    // Judged by order, not by time (a busy machine slows both alike): the lookup is answered while
    // most checks still wait, never after the burst.
    const stored = await hashPassword("correct horse battery");
    let done = 0;
    // Thirty at the service's cost: a few seconds on a quiet machine, well inside the limit on a busy one.
    const checks = Array.from({ length: 30 }, () =>
      verifyPassword("wrong guess", stored).then((ok) => {
        done++;
        return ok;
      }),
    );
    await lookup("localhost");
    const doneAtLookup = done;
    expect(await Promise.all(checks)).toEqual(Array(30).fill(false));
    expect(doneAtLookup).toBeLessThan(15);
  });
});
