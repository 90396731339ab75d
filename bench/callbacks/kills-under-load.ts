import type { AttemptRow, FloodResult } from "./load-scene.js";
import { type Receiver, sleep, until } from "./scene.js";
import { approveSteadily, inLoadScene, type Spread, spread, type Track, WARM_SECONDS } from "./under-load.js";

/**
 * The worker instance killed with kill -9 three times, 10 s apart, each time started again at
 * once, during a load like the busy receiver's (issue 50, point 3); the receiver answers 500 to
 * 8 % of first attempts and never answers 2 % of them, and takes every later attempt. So every
 * callback's schedule has it delivered by its second attempt (the first retry comes 10 s after a
 * failure; a hung first attempt is cut at 10 s), or by the one after an attempt a kill cut: all
 * within 60 s after the load ends.
 */
export interface KillsResult {
  rate: number;
  seconds: number;
  callbacks: number;
  failingFirst: number;
  hangingFirst: number;
  /** Each kill, seconds into the approvals, and how long its new worker took to listen, ms. */
  kills: { atS: number; restartMs: number }[];
  /** Attempts on record as cut by a worker's death. */
  interrupted: number;
  /** Callbacks not delivered 60 s after the load ended. */
  pendingAt60: number;
  /** From the load's end to the last callback's arrival, ms (NaN when some never arrived). */
  lastAfterLoadMs: number;
  /** Arrived after those 60 s, within the two minutes more the bench waits then. */
  deliveredLater: number;
  missing: number;
  /** Callbacks the store marks failed. */
  failed: number;
  /** Callbacks whose receiver got one X-Callback-Attempt number twice. */
  repeatedAttemptNumbers: number;
  /**
   * Callbacks decided before a restart and not yet attempted when the worker died, that the dead
   * worker did not hold: from the later of their decision and the new worker listening, to their
   * first attempt's arrival, ms; `unattempted` of them saw no attempt before the next kill.
   */
  dueAfterRestart: { count: number; unattempted: number } & Spread;
  /** Callbacks a dead worker held a lease on at a kill: from the kill to their next attempt, ms. */
  heldByDead: { count: number } & Spread;
  flood: FloodResult;
}

const KILLS = 3;
const KILL_GAP_S = 10;
const AFTER_LOAD_MS = 60_000;
const LATER_MS = 120_000;

/** The store's words for an attempt cut by a worker's death (src/store/callbacks/callbacks.ts, INTERRUPTED). */
const isInterrupted = (row: AttemptRow) => row.error?.startsWith("interrupted") === true;

export function benchKillsUnderLoad(opts: {
  cwd: string;
  rate: number;
  seconds: number;
  track: Track;
}): Promise<KillsResult> {
  return inLoadScene(opts, async (scene, r, ids) => {
    // Drawn up front, spread evenly and apart: 2 % hang (every 50th), 8 % fail (2 in every 25).
    const hanging = new Set(ids.filter((_id, i) => i % 50 === 49));
    const failing = new Set(ids.filter((_id, i) => i % 25 === 3 || i % 25 === 15));
    r.answer = (id, attempt) =>
      attempt !== 1 ? 200 : hanging.has(id) ? "hold" : failing.has(id) ? 500 : 200;

    const flood = scene.flood(WARM_SECONDS + opts.seconds);
    await sleep(WARM_SECONDS * 1000);
    const started = performance.now();
    // Around the middle of the load: at 20, 30 and 40 s of a minute (closer together in a shorter trial).
    const gapS = Math.min(KILL_GAP_S, opts.seconds / (KILLS + 1));
    const firstKillS = opts.seconds / 2 - gapS;
    const kills: Kill[] = [];
    const killing = (async () => {
      for (let k = 0; k < KILLS; k++) {
        await sleep(started + (firstKillS + k * gapS) * 1000 - performance.now());
        const at = scene.killWorker();
        // The leases now are the dead workers' (this one's, and an earlier one's not run out yet):
        // read while the successor starts, a second or so before it claims anything.
        const [held, ready] = await Promise.all([scene.leased(), scene.restartWorker()]);
        kills.push({ at, ready, held: new Set(held) });
      }
    })();
    const [{ answeredAt }] = await Promise.all([approveSteadily(scene, ids, opts.rate), killing]);
    const floodResult = await flood.done;
    const loadEnd = performance.now();

    const allIn = () => ids.every((id) => r.delivered.has(id));
    await until(allIn, AFTER_LOAD_MS);
    if (!allIn()) await until(allIn, LATER_MS);
    const rows = await scene.attempts();

    const deadline = loadEnd + AFTER_LOAD_MS;
    const arrivedBy = (id: number, t: number) => (r.delivered.get(id) ?? Number.POSITIVE_INFINITY) <= t;
    const last = Math.max(...ids.map((id) => r.delivered.get(id) ?? Number.POSITIVE_INFINITY));
    const pendingAt60 = ids.filter((id) => !arrivedBy(id, deadline)).length;
    const missing = ids.filter((id) => !r.delivered.has(id)).length;
    const waits = restartWaits(ids, kills, answeredAt, r);
    return {
      rate: opts.rate,
      seconds: opts.seconds,
      callbacks: ids.length,
      failingFirst: failing.size,
      hangingFirst: hanging.size,
      kills: kills.map((k) => ({ atS: (k.at - started) / 1000, restartMs: k.ready - k.at })),
      interrupted: rows.filter(isInterrupted).length,
      pendingAt60,
      lastAfterLoadMs: Number.isFinite(last) ? last - loadEnd : Number.NaN,
      deliveredLater: pendingAt60 - missing,
      missing,
      failed: new Set(rows.filter((row) => row.status === "failed").map((row) => row.transactionId)).size,
      repeatedAttemptNumbers: ids.filter((id) => {
        const numbers = (r.arrivals.get(id) ?? []).map((a) => a.attempt);
        return new Set(numbers).size !== numbers.length;
      }).length,
      ...waits,
      flood: floodResult,
    };
  });
}

/** A kill: when, when its successor listened, and the callbacks dead workers held leases on then. */
interface Kill {
  at: number;
  ready: number;
  held: Set<number>;
}

/**
 * After each kill: the callbacks the dead worker held, from the kill to their next arrival (once
 * per stretch without an arrival: a row still leased by the worker killed before is counted from
 * that kill); and the callbacks that were due with no live worker (decided before the restart, not
 * attempted before the kill, not held), from the later of their decision and the restart to their
 * first arrival, or counted as unattempted when that worker was killed before it came.
 */
function restartWaits(
  ids: number[],
  kills: Kill[],
  answeredAt: Map<number, number>,
  r: Receiver,
): Pick<KillsResult, "dueAfterRestart" | "heldByDead"> {
  const firstAfter = (id: number, t: number) =>
    (r.arrivals.get(id) ?? []).find((a) => a.at > t)?.at ?? Number.POSITIVE_INFINITY;
  const due: number[] = [];
  const held: number[] = [];
  /** Each held callback's kill, while no attempt of it has arrived since. */
  const heldSince = new Map<number, number>();
  let unattempted = 0;
  kills.forEach((kill, k) => {
    const nextKill = kills[k + 1]?.at ?? Number.POSITIVE_INFINITY;
    for (const id of kill.held) {
      const since = heldSince.get(id);
      if (since !== undefined && firstAfter(id, since) > kill.at) continue;
      heldSince.set(id, kill.at);
      held.push(firstAfter(id, kill.at) - kill.at);
    }
    for (const id of ids) {
      const decided = answeredAt.get(id);
      if (decided === undefined || decided >= kill.ready || kill.held.has(id)) continue;
      if ((r.arrivals.get(id) ?? []).some((a) => a.at <= kill.at)) continue;
      const first = firstAfter(id, kill.at);
      if (first > nextKill) unattempted++;
      else due.push(first - Math.max(decided, kill.ready));
    }
  });
  return {
    dueAfterRestart: { count: due.length, unattempted, ...spread(due) },
    heldByDead: { count: held.length, ...spread(held) },
  };
}
