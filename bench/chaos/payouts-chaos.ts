/**
 * `npm run chaos:payouts`: the payouts chaos run of issue 47 on PostgreSQL (docs/RELIABILITY.md,
 * "Payouts under kill -9"). Two `api` instances and a `worker` of the built server on a fresh
 * schema, a payout channel simulator per channel account, a merchant's receiver; withdrawals,
 * batches, files marked sent, releases and statement imports through both instances while a
 * process is killed with SIGKILL every few seconds; then it settles and is checked.
 *
 * Prints one JSON summary on stdout; exits 1 when a check failed or a 500 was answered.
 * CHAOS_SECONDS (90), CHAOS_KILL_EVERY_MS (4000), CHAOS_WITHDRAWALS_PER_SECOND (12),
 * CHAOS_SETTLE_SECONDS (120), RELIABILITY_SEED.
 */
import { runPayoutsChaos } from "../../test/support/payouts-chaos/run.js";
import { startWorld } from "../../test/support/payouts-chaos/world.js";
import { SEED } from "../../test/support/seed.js";

const num = (name: string, fallback: number) => Number(process.env[name] ?? fallback);

const world = await startWorld();
let failed = true;
try {
  const summary = await runPayoutsChaos(world, {
    durationMs: num("CHAOS_SECONDS", 90) * 1000,
    killEveryMs: num("CHAOS_KILL_EVERY_MS", 4_000),
    withdrawalsPerSecond: num("CHAOS_WITHDRAWALS_PER_SECOND", 12),
    settleMs: num("CHAOS_SETTLE_SECONDS", 120) * 1000,
    seed: SEED,
  });
  process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
  failed = !summary.held;
} finally {
  await world.close();
}
process.exit(failed ? 1 : 0);
