import { randomBytes } from "node:crypto";
import { turkishIbanFor } from "../../../src/domain/iban.js";
import type { SimPayoutBehaviour } from "../../../src/routing/channels/simulator.js";
import { signed, sleep } from "../spawn.js";
import type { Bank } from "./bank.js";
import { type CallKind, killSlot, type Slot, type SlotName, startSlot, type World } from "./world.js";

/**
 * Who acts in the payouts chaos run: merchants asking for withdrawals, operators batching, sending,
 * releasing, cancelling and rejecting through the admin API of either api instance, the bank, the
 * channels' moods, and the killer. Each loop runs until `stop.now` is set.
 */
export interface Stop {
  now: boolean;
}

export interface MerchantFigures {
  asked: number;
  answered200: number;
  /** reference → amount in minor units, for every withdrawal answered 200. */
  accepted: Map<string, number>;
  /** References whose answer never came (a kill): looked up at the end. */
  unanswered: Set<string>;
  retries: number;
  refused: Map<number, number>;
  /** The first refusal's words, to tell a broken run from a duplicate reference. */
  firstRefusal?: string;
}

export interface Kill {
  slot: SlotName;
  aimedAt: CallKind | "worker" | "any";
  /** Requests in flight on the killed process at the moment, by kind. */
  inFlight: Partial<Record<CallKind, number>>;
  atMs: number;
}

const pick = <T>(random: () => number, items: readonly T[]): T =>
  items[Math.floor(random() * items.length)] as T;

export function newMerchantFigures(): MerchantFigures {
  return {
    asked: 0,
    answered200: 0,
    accepted: new Map(),
    unanswered: new Set(),
    retries: 0,
    refused: new Map(),
  };
}

/** A number written in letters (a name holds no digits). */
const lettersOf = (n: number): string =>
  (n >= 26 ? lettersOf(Math.floor(n / 26) - 1) : "") + String.fromCharCode(65 + (n % 26));

let bban = 0;
/** One withdrawal, sent until it is answered (a new nonce each time, the same reference). */
export async function oneWithdrawal(world: World, m: MerchantFigures, random: () => number): Promise<void> {
  const n = ++bban;
  const amountMinor = 1_000 + Math.floor(random() * 499_000);
  const body = {
    amount: `${Math.floor(amountMinor / 100)}.${String(amountMinor % 100).padStart(2, "0")}`,
    bank_code: "GARANTI",
    first_name: "Mehmet",
    last_name: `Öztürk ${lettersOf(n)}`,
    username: `+9055500${String(n).padStart(5, "0")}`,
    user_id: `chaos-user-${n}-${randomBytes(3).toString("hex")}`,
    reference: `CHAOS-WD-${n}-${randomBytes(4).toString("hex")}`,
    iban: turkishIbanFor(`0006${String(700_000_000 + n).padStart(18, "0")}`),
  };
  m.asked++;
  m.unanswered.add(body.reference);
  for (let attempt = 0; attempt < 8; attempt++) {
    if (attempt > 0) m.retries++;
    const s = signed(world.firm, { path: "/paymentapi/v1/withdrawals", body });
    const res = await world.call("withdrawal", "POST", "/paymentapi/v1/withdrawals", {
      raw: s.body.toString("utf8"),
      headers: s.headers,
    });
    if (res.status === 0) {
      await sleep(100);
      continue;
    }
    m.unanswered.delete(body.reference);
    if (res.status === 200) {
      m.answered200++;
      m.accepted.set(body.reference, amountMinor);
    } else {
      // A retry after a lost answer finds its reference taken: the first try was written.
      m.refused.set(res.status, (m.refused.get(res.status) ?? 0) + 1);
      m.firstRefusal ??= `${res.status} ${res.text.slice(0, 200)}`;
    }
    return;
  }
}

export async function merchants(
  world: World,
  m: MerchantFigures,
  stop: Stop,
  random: () => number,
  perSecond: number,
) {
  const lanes = 4;
  await Promise.all(
    Array.from({ length: lanes }, async () => {
      while (!stop.now) {
        const started = Date.now();
        await oneWithdrawal(world, m, random);
        await sleep(Math.max(0, (lanes * 1000) / perSecond - (Date.now() - started)));
      }
    }),
  );
}

export interface OperatorFigures {
  batchesMade: number;
  payoutsBatched: number;
  markedSent: number;
  released: number;
  cancelled: number;
  rejected: number;
  /** 409s of two operators on one batch (or a withdrawal another batch took). */
  races: number;
}

export function newOperatorFigures(): OperatorFigures {
  return {
    batchesMade: 0,
    payoutsBatched: 0,
    markedSent: 0,
    released: 0,
    cancelled: 0,
    rejected: 0,
    races: 0,
  };
}

/** Makes a batch on the firm from one of the paying accounts. */
export async function makeBatch(
  world: World,
  o: OperatorFigures,
  slot: SlotName,
  accountId: number,
  max: number,
) {
  const body = { account: accountId, firm: world.firm.id, max_count: max, actor: `chaos-${slot}` };
  const res = await world.call("batch", "POST", "/admin/v1/payouts/batches", { body, slot });
  if (res.status === 201) {
    o.batchesMade++;
    o.payoutsBatched += res.json.payouts as number;
  } else if (res.status === 409) o.races++;
  return res;
}

/** Sends what is batched: a file batch downloaded then marked sent (now and then cancelled), a channel one released. */
export async function sendBatched(
  world: World,
  o: OperatorFigures,
  slot: SlotName,
  random: () => number,
  cancelShare: number,
) {
  const listed = await world.call("read", "GET", "/admin/v1/payouts/batches?stage=batched&limit=1000", {
    slot,
  });
  if (listed.status !== 200) return;
  const batches = listed.json.batches as { batch: number; account_id: number }[];
  for (const b of batches.sort(() => random() - 0.5).slice(0, 4)) {
    const actor = { actor: `chaos-${slot}` };
    if (random() < cancelShare) {
      const res = await world.call("cancel", "POST", `/admin/v1/payouts/batches/${b.batch}/cancel`, {
        body: actor,
        slot,
      });
      if (res.status === 200) o.cancelled++;
      else if (res.status === 409) o.races++;
      continue;
    }
    if (b.account_id === world.accounts.file.id) {
      await world.call(
        "file",
        "GET",
        `/admin/v1/payouts/batches/${b.batch}/file?format=pain.001.001.09&actor=chaos`,
        { slot },
      );
      const res = await world.call("sent", "POST", `/admin/v1/payouts/batches/${b.batch}/sent`, {
        body: actor,
        slot,
      });
      if (res.status === 200) o.markedSent++;
      else if (res.status === 409) o.races++;
    } else {
      const res = await world.call("release", "POST", `/admin/v1/payouts/batches/${b.batch}/release`, {
        body: actor,
        slot,
      });
      if (res.status === 200) o.released++;
      else if (res.status === 409) o.races++;
    }
  }
}

/** Rejects some withdrawals the bank or a channel sent back. */
export async function rejectSomeReturned(world: World, o: OperatorFigures, random: () => number) {
  const res = await world.call("read", "GET", `/admin/v1/payouts/waiting?firm=${world.firm.id}&limit=1000`);
  if (res.status !== 200) return;
  for (const w of res.json.waiting as { transaction_id: number; last_attempt: { stage: string } | null }[]) {
    if (!w.last_attempt || random() > 0.3) continue;
    const r = await world.call("reject", "POST", `/admin/v1/transactions/${w.transaction_id}/reject`, {
      body: { actor: "chaos-reject" },
    });
    if (r.status === 200) o.rejected++;
    else if (r.status === 409) o.races++;
  }
}

export async function operators(
  world: World,
  o: OperatorFigures,
  bank: Bank,
  stop: Stop,
  random: () => number,
) {
  const accounts = world.accounts;
  const ids = [accounts.file.id, accounts.channelApproves.id, accounts.channelStatement.id];
  const loop = async (every: [number, number], step: () => Promise<unknown>) => {
    while (!stop.now) {
      await step().catch(() => undefined);
      await sleep(every[0] + random() * (every[1] - every[0]));
    }
  };
  await Promise.all([
    ...(["api-0", "api-1"] as const).map((slot) =>
      loop([300, 900], () => makeBatch(world, o, slot, pick(random, ids), 3 + Math.floor(random() * 12))),
    ),
    ...(["api-0", "api-1"] as const).map((slot) =>
      loop([300, 700], () => sendBatched(world, o, slot, random, 0.05)),
    ),
    loop([2_000, 3_000], () => rejectSomeReturned(world, o, random)),
    loop([700, 1_200], () => bank.executeFileBatches()),
    loop([1_500, 2_500], async () => {
      bank.bookChannel(accounts.channelApproves.id, accounts.channelApproves.sim);
      bank.bookChannel(accounts.channelStatement.id, accounts.channelStatement.sim);
      await bank.importStatements();
    }),
  ]);
}

const MOODS: [number, SimPayoutBehaviour][] = [
  [0.45, { kind: "payout-paid" }],
  [0.2, { kind: "payout-accept", delayMs: 800 }],
  [0.12, { kind: "payout-twice" }],
  [0.08, { kind: "payout-refuse" }],
  [0.15, { kind: "payout-return", delayMs: 1_500 }],
];

/** The mood whose share of [0, 1) holds `r`. */
function moodAt(r: number): SimPayoutBehaviour {
  let below = 0;
  for (const [share, mood] of MOODS) {
    below += share;
    if (r < below) return mood;
  }
  return { kind: "payout-paid" };
}

/** The channels change their way of answering every few seconds. */
export async function channelMoods(world: World, stop: Stop, random: () => number) {
  const sims = [world.accounts.channelApproves.sim, world.accounts.channelStatement.sim];
  while (!stop.now) {
    for (const sim of sims) {
      sim.behave(moodAt(random()));
    }
    await sleep(3_000);
  }
  for (const sim of sims) sim.behave({ kind: "payout-paid" });
}

const AIMS: (CallKind | "worker")[] = ["batch", "sent", "release", "import", "worker", "withdrawal"];

/**
 * Every `everyMs` (±40 %), one process killed with SIGKILL and started again: aimed in turn at a
 * request kind (the api instance with one in flight, within 0–30 ms of seeing it) or at the worker.
 */
async function restartLater(world: World, slot: Slot, afterMs: number): Promise<void> {
  await sleep(afterMs);
  for (let tries = 0; !slot.server && tries < 5; tries++) {
    slot.restarts++;
    await startSlot(world, slot).catch(() => sleep(500));
  }
}

export async function killer(
  world: World,
  kills: Kill[],
  stop: Stop,
  random: () => number,
  everyMs: number,
  started: number,
) {
  let turn = 0;
  const restarts: Promise<void>[] = [];
  while (!stop.now) {
    await sleep(everyMs * (0.6 + 0.8 * random()));
    if (stop.now) break;
    const aim = AIMS[turn++ % AIMS.length] as CallKind | "worker";
    let victim = world.slots.find((s) => s.name === "worker");
    if (aim !== "worker") {
      const deadline = Date.now() + 3_000;
      victim = undefined;
      while (!victim && Date.now() < deadline && !stop.now) {
        victim = world.slots.find((s) => s.role === "api" && s.server && (s.inFlight.get(aim) ?? 0) > 0);
        if (!victim) await sleep(2);
      }
      await sleep(random() * 30);
      victim ??= pick(
        random,
        world.slots.filter((s) => s.role === "api" && s.server),
      );
    }
    if (!victim?.server) continue;
    const inFlight = Object.fromEntries([...victim.inFlight].filter(([, n]) => n > 0));
    kills.push({
      slot: victim.name,
      aimedAt: victim.role === "worker" ? "worker" : aim,
      inFlight,
      atMs: Date.now() - started,
    });
    await killSlot(victim);
    // Started again in the background: the next kill may come while it starts (both apis down for a moment).
    restarts.push(restartLater(world, victim, 200 + random() * 800));
  }
  await Promise.all(restarts);
}
