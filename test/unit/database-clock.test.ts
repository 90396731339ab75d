import { describe, expect, it } from "vitest";
import { createDatabaseClock } from "../../src/jobs/database-clock.js";

const quiet = { warn: () => {} };

describe("database clock", () => {
  it("adds the database's lead, measured at the midpoint of the shortest round trip", async () => {
    let t = 1_000_000;
    // Round trips of 40, 10 and 30 ms; the database reads 5 s ahead of the midpoint each time.
    const trips = [40, 10, 30];
    let i = 0;
    const clock = createDatabaseClock({
      base: () => t,
      monotonic: () => t,
      async databaseTime() {
        const trip = trips[i++ % trips.length] as number;
        const at = t + trip / 2 + 5_000 + (trip === 10 ? 0 : 7);
        t += trip;
        return at;
      },
      log: quiet,
    });
    await clock.start();
    clock.stop();
    expect(clock.offsetMs()).toBe(5_000);
    expect(clock.now()).toBe(t + 5_000);
  });

  it("once corrected, runs on the monotonic clock: NTP stepping the machine's clock right does not put it ahead", async () => {
    let wall = 1_000_000; // 90 s behind the database
    let mono = 5_000;
    const clock = createDatabaseClock({
      base: () => wall,
      monotonic: () => mono,
      databaseTime: async () => wall + 90_000,
      log: quiet,
    });
    await clock.start();
    clock.stop();
    expect(clock.now()).toBe(1_090_000);
    // Ten seconds pass, and NTP steps the machine's clock forward by the 90 s it was behind.
    wall += 10_000 + 90_000;
    mono += 10_000;
    // Before: 1,190,000 (the old correction added to the corrected clock), 90 s ahead.
    expect(clock.now()).toBe(1_100_000);
  });

  it("leaves differences under a second alone, and has nothing to do without a shared database", async () => {
    const near = createDatabaseClock({ base: () => 0, databaseTime: async () => 999, log: quiet });
    await near.start();
    near.stop();
    expect(near.offsetMs()).toBe(0);
    const embedded = createDatabaseClock({ base: () => 42, databaseTime: async () => undefined, log: quiet });
    await embedded.start();
    expect(embedded.now()).toBe(42);
  });

  it("keeps the last correction while the database cannot be read, and says so", async () => {
    const warnings: string[] = [];
    let fail = false;
    const clock = createDatabaseClock({
      base: () => 0,
      async databaseTime() {
        if (fail) throw new Error("connection refused");
        return -120_000;
      },
      log: { warn: (_o, msg) => warnings.push(msg) },
      intervalMs: 10,
    });
    await clock.start();
    expect(clock.offsetMs()).toBe(-120_000);
    fail = true;
    await expect
      .poll(() => warnings)
      .toContain("could not read the database's clock; keeping the last correction");
    clock.stop();
    expect(clock.offsetMs()).toBe(-120_000);
    expect(warnings[0]).toContain("differs from the database's");
  });
});
