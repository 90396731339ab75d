import { seeded } from "../seed.js";
import { sleep } from "../spawn.js";
import {
  channelMoods,
  type Kill,
  killer,
  makeBatch,
  merchants,
  newMerchantFigures,
  newOperatorFigures,
  operators,
  type Stop,
  sendBatched,
} from "./actors.js";
import { Bank } from "./bank.js";
import { type Census, type Checks, check, holds } from "./checks.js";
import { startSlot, type World } from "./world.js";

/**
 * The payouts chaos run (issue 47, "Done when"): for `durationMs` merchants ask for withdrawals,
 * operators batch, send and release through both api instances, the bank and the channels pay and
 * the statements are imported through both instances at once, while a process is killed with
 * SIGKILL every `killEveryMs` and started again. Then the run settles (no kills, the bank pays
 * everything, the operators batch and send what waits) and is checked.
 */
export interface ChaosOptions {
  durationMs: number;
  killEveryMs: number;
  withdrawalsPerSecond: number;
  seed: number;
  settleMs: number;
}

export interface ChaosSummary {
  options: ChaosOptions;
  seconds: { chaos: number; settle: number; settled: boolean };
  merchants: {
    asked: number;
    answered200: number;
    retries: number;
    refused: Record<string, number>;
    unanswered: number;
    firstRefusal?: string;
  };
  operators: ReturnType<typeof newOperatorFigures>;
  bank: Bank["figures"];
  channels: Record<
    string,
    { payouts: number; paid: number; returned: number; refused: number; sends: number }
  >;
  kills: {
    total: number;
    bySlot: Record<string, number>;
    byAim: Record<string, number>;
    cutInFlight: Record<string, number>;
  };
  answers: Record<string, Record<string, number>>;
  serverErrors: World["serverErrors"];
  census: Census;
  checks: Record<keyof Checks, number>;
  offenders: Partial<Checks>;
  held: boolean;
}

const count = (items: string[]) =>
  items.reduce<Record<string, number>>((t, k) => {
    t[k] = (t[k] ?? 0) + 1;
    return t;
  }, {});

async function waitAllUp(world: World) {
  for (const slot of world.slots) if (!slot.server) await startSlot(world, slot);
}

/** No kills; the bank pays all; what waits is batched and sent until nothing moves (or the time is up). */
async function settle(
  world: World,
  bank: Bank,
  o: ReturnType<typeof newOperatorFigures>,
  settleMs: number,
  random: () => number,
) {
  bank.returnShare = 0;
  const deadline = Date.now() + settleMs;
  const accounts = [
    world.accounts.file.id,
    world.accounts.channelApproves.id,
    world.accounts.channelStatement.id,
  ];
  let quietRounds = 0;
  while (Date.now() < deadline) {
    for (const account of accounts) await makeBatch(world, o, "api-0", account, 1_000);
    for (let i = 0; i < 5; i++) await sendBatched(world, o, i % 2 === 0 ? "api-0" : "api-1", random, 0);
    await bank.executeFileBatches();
    bank.bookChannel(world.accounts.channelApproves.id, world.accounts.channelApproves.sim);
    bank.bookChannel(world.accounts.channelStatement.id, world.accounts.channelStatement.sim);
    await bank.importStatements();
    await sleep(1_000);
    quietRounds = (await quiet(world, bank)) ? quietRounds + 1 : 0;
    if (quietRounds >= 3) return true;
  }
  return false;
}

/** Nothing left to move: nothing waiting, batched or undelivered, and only payouts the channels never got still sent. */
async function quiet(world: World, bank: Bank): Promise<boolean> {
  if (!bank.idle) return false;
  const r = await world.db.query(
    `SELECT
       (SELECT count(*)::int FROM transactions t WHERE t.type = 'withdrawal' AND t.status = 'pending'
          AND NOT EXISTS (SELECT 1 FROM payout_attempts a WHERE a.transaction_id = t.id
                          AND a.stage IN ('second_approval','batched','sent','paid'))) AS waiting,
       (SELECT count(*)::int FROM payout_batches WHERE stage IN ('second_approval','batched')) AS batched,
       (SELECT count(*)::int FROM callbacks WHERE status <> 'delivered') AS undelivered,
       (SELECT coalesce(array_agg(payment_id), '{}') FROM payout_attempts WHERE stage = 'sent') AS sent`,
  );
  const row = r.rows[0];
  const sims = [world.accounts.channelApproves.sim, world.accounts.channelStatement.sim];
  const sentKnown = (row.sent as string[]).filter((pid) => sims.some((s) => s.payouts.has(pid)));
  return row.waiting === 0 && row.batched === 0 && row.undelivered === 0 && sentKnown.length === 0;
}

export async function runPayoutsChaos(world: World, options: ChaosOptions): Promise<ChaosSummary> {
  const random = seeded(options.seed);
  const stop: Stop = { now: false };
  const m = newMerchantFigures();
  const o = newOperatorFigures();
  const bank = new Bank(world, random);
  const kills: Kill[] = [];
  const started = Date.now();
  const running = Promise.all([
    merchants(world, m, stop, random, options.withdrawalsPerSecond),
    operators(world, o, bank, stop, random),
    channelMoods(world, stop, random),
    killer(world, kills, stop, random, options.killEveryMs, started),
  ]);
  await sleep(options.durationMs);
  stop.now = true;
  await running;
  const chaosSeconds = (Date.now() - started) / 1000;
  await waitAllUp(world);
  const settleStart = Date.now();
  const settled = await settle(world, bank, o, options.settleMs, random);
  const settleSeconds = (Date.now() - settleStart) / 1000;
  const { checks, census } = await check(world, bank, m);

  const offenders: Partial<Checks> = {};
  for (const [k, v] of Object.entries(checks) as [keyof Checks, unknown[]][])
    if (v.length > 0) (offenders as Record<string, unknown[]>)[k] = v.slice(0, 20);
  const channels: ChaosSummary["channels"] = {};
  for (const [name, a] of [
    ["approves", world.accounts.channelApproves],
    ["statement", world.accounts.channelStatement],
  ] as const) {
    const ps = [...a.sim.payouts.values()];
    channels[name] = {
      payouts: ps.length,
      paid: ps.filter((p) => p.paid === 1).length,
      returned: ps.filter((p) => p.status === "returned").length,
      refused: ps.filter((p) => p.status === "refused").length,
      sends: ps.reduce((s, p) => s + p.sends, 0),
    };
  }
  const cut: string[] = kills.flatMap((k) =>
    Object.entries(k.inFlight).flatMap(([kind, n]) => Array(n).fill(kind)),
  );
  return {
    options,
    seconds: { chaos: Math.round(chaosSeconds), settle: Math.round(settleSeconds), settled },
    merchants: {
      asked: m.asked,
      answered200: m.answered200,
      retries: m.retries,
      refused: Object.fromEntries([...m.refused].map(([s, n]) => [String(s), n])),
      unanswered: m.unanswered.size,
      firstRefusal: m.firstRefusal,
    },
    operators: o,
    bank: bank.figures,
    channels,
    kills: {
      total: kills.length,
      bySlot: count(kills.map((k) => k.slot)),
      byAim: count(kills.map((k) => k.aimedAt)),
      cutInFlight: count(cut),
    },
    answers: Object.fromEntries(
      [...world.answers].map(([kind, byStatus]) => [
        kind,
        Object.fromEntries([...byStatus].map(([s, n]) => [String(s), n])),
      ]),
    ),
    serverErrors: world.serverErrors.slice(0, 20),
    census,
    checks: Object.fromEntries(
      Object.entries(checks).map(([k, v]) => [k, (v as unknown[]).length]),
    ) as ChaosSummary["checks"],
    offenders,
    held: holds(checks) && world.serverErrors.filter((e) => e.status === 500).length === 0,
  };
}
