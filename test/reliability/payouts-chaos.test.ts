import { afterEach, describe, expect, it } from "vitest";
import { runPayoutsChaos } from "../support/payouts-chaos/run.js";
import { startWorld, type World } from "../support/payouts-chaos/world.js";
import { SEED } from "../support/seed.js";
import { killAll } from "../support/spawn.js";
import { STORES } from "../support/stores.js";

/**
 * Payouts under kill -9 (issue 47, "Done when"), the short version of `npm run chaos:payouts`
 * (docs/RELIABILITY.md, "Payouts under kill -9"): two api instances and a worker of the built server
 * on one PostgreSQL, withdrawals, batches made at once on one firm, files marked sent, channel
 * releases and statement imports through both instances while a process is killed with SIGKILL
 * every 2 s; then it settles. No withdrawal paid twice (by the database and by the money's own
 * books), none lost, each in one stage, one callback per decision, no 500.
 * Each batch's own stage fits its payouts' (a batch whose last payouts end in parallel is closed
 * by the sweep after each commit and by the payout watch).
 */
let world: World | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
  await killAll();
});

describe.runIf(STORES.includes("postgres"))(`payouts under kill -9 on PostgreSQL (seed ${SEED})`, () => {
  it("0 paid twice, 0 lost, every withdrawal in one stage, no 500", async () => {
    world = await startWorld();
    const s = await runPayoutsChaos(world, {
      durationMs: 10_000,
      killEveryMs: 2_000,
      withdrawalsPerSecond: 10,
      settleMs: 30_000,
      seed: SEED,
    });
    const payoutChecks = s.checks;
    console.log(
      `payouts chaos (seed ${SEED}): ${JSON.stringify({ seconds: s.seconds, merchants: s.merchants, operators: s.operators, kills: s.kills, census: s.census })}`,
    );
    // The run did what it is for: withdrawals paid by file and by both channels, kills landed.
    // Merchants ask one after another, so a busy machine asks fewer (34 of a planned 100 on one).
    expect(s.merchants.asked).toBeGreaterThanOrEqual(20);
    expect(s.merchants.answered200).toBeGreaterThan(s.merchants.asked / 2);
    expect(s.operators.markedSent).toBeGreaterThan(0);
    expect(s.operators.released).toBeGreaterThan(0);
    expect(s.bank.importsAnswered200).toBeGreaterThan(0);
    expect(s.kills.total).toBeGreaterThanOrEqual(2);
    expect(s.seconds.settled, JSON.stringify(s.census)).toBe(true);
    expect(s.offenders.paidTwiceByMoney ?? [], "paid twice by the money's books").toEqual([]);
    expect(
      Object.values(payoutChecks).every((n) => n === 0),
      JSON.stringify(s.offenders),
    ).toBe(true);
    expect(s.serverErrors.filter((e) => e.status === 500)).toEqual([]);
  }, 90_000);
});
