import { percentile } from "../shared/load.js";
import { type AttemptRow, type FloodResult, type LoadScene, startLoadScene } from "./load-scene.js";
import { approver, everyNth, pendingDeposits, type Receiver, sleep, startReceiver, until } from "./scene.js";

/**
 * One receiver's callbacks while deposits keep both cores busy (issue 50, point 3), on PostgreSQL
 * with two `api` instances and one `worker`: approvals at a steady rate through the api instances,
 * each callback's time from its decision (the approval's answer: its callback row is committed by
 * then) to its arrival at the receiver, for the callbacks whose first attempt was not left hanging;
 * and, as the operator sees it, from sending the approval. The store's record of each first
 * attempt says where the time went: the approval (sent → answered), the wait for the worker (the
 * answer → the first attempt started; below zero when it started before the answer reached the
 * bench) and the send (the first attempt started → arrival).
 */
export interface BusyResult {
  rate: number;
  seconds: number;
  hangShare: number;
  /** Callbacks that did not hang. */
  count: number;
  hung: number;
  /** Decision (the approval's answer) → arrival, ms. */
  p50: number;
  p99: number;
  max: number;
  /** Sending the approval → arrival, ms. */
  fromSending: Spread;
  /** Callbacks that did not hang and had not arrived when the wait ended. */
  missing: number;
  hungDelivered: number;
  /** The most first attempts the receiver held unanswered at one time. */
  maxHeld: number;
  /** The approvals' own answer times, ms. */
  approval: Spread;
  stages: Stages;
  /** Callbacks whose first attempt started before their approval's answer reached the bench. */
  attemptedBeforeAnswer: number;
  /** The stages of the callback slowest from sending its approval. */
  slowest: { total: number } & Record<keyof Stages, number>;
  flood: FloodResult;
}

export interface Spread {
  p50: number;
  p99: number;
  max: number;
}

export interface Stages {
  decision: Spread;
  afterAnswer: Spread;
  send: Spread;
}

/** Tasks to stop when the bench is interrupted: registers one and returns its removal. */
export type Track = (cleanup: () => Promise<void>) => () => void;

/** Seconds of flood before the first approval, so the cores are busy from the first. */
export const WARM_SECONDS = 3;
/** Seconds of flood after the last approval, so its callbacks are sent under load too. */
const TAIL_SECONDS = 5;

export function spread(values: number[]): Spread {
  const sorted = values.filter(Number.isFinite).sort((a, b) => a - b);
  return { p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99), max: sorted.at(-1) ?? Number.NaN };
}

/** The bench's clock (performance.now) as the servers' (ms since the epoch, this machine's). */
const epoch = (t: number) => performance.timeOrigin + t;

/**
 * Approvals of `ids` at `rate` a second from now, round-robin over the api instances; each
 * approval's sending and answer on the bench's clock. Resolves once every approval is answered.
 */
export async function approveSteadily(
  scene: LoadScene,
  ids: number[],
  rate: number,
): Promise<{ sentAt: Map<number, number>; answeredAt: Map<number, number> }> {
  const approvals = scene.apis.map((a) => approver(a.child.url, a.adminToken));
  const sentAt = new Map<number, number>();
  const answeredAt = new Map<number, number>();
  const started = performance.now();
  const decisions: Promise<void>[] = [];
  for (let i = 0; i < ids.length; i++) {
    const wait = started + (i * 1000) / rate - performance.now();
    if (wait > 0) await sleep(wait);
    const id = ids[i] as number;
    const approve = approvals[i % approvals.length] as (id: number) => Promise<void>;
    sentAt.set(id, performance.now());
    decisions.push(approve(id).then(() => void answeredAt.set(id, performance.now())));
  }
  await Promise.all(decisions);
  return { sentAt, answeredAt };
}

/**
 * A load scene of two api instances and a worker, one receiver, and a pending deposit calling it
 * back for each approval of the run (`rate` × `seconds`); all closed after `use`.
 */
export async function inLoadScene<T>(
  opts: { cwd: string; rate: number; seconds: number; track: Track },
  use: (scene: LoadScene, r: Receiver, ids: number[]) => Promise<T>,
): Promise<T> {
  const scene = await startLoadScene({ cwd: opts.cwd, apiInstances: 2 });
  const untrack = opts.track(scene.cleanup);
  let receiver: Receiver | undefined;
  try {
    receiver = await startReceiver();
    const api = scene.apis[0];
    if (!api) throw new Error("no api instance");
    const count = Math.round(opts.rate * opts.seconds);
    const ids = await pendingDeposits(api.child.url, api.adminToken, receiver.url, count);
    return await use(scene, receiver, ids);
  } finally {
    await receiver?.close();
    await scene.cleanup();
    untrack();
  }
}

export function benchBusyReceiver(opts: {
  cwd: string;
  rate: number;
  seconds: number;
  hangShare: number;
  track: Track;
}): Promise<BusyResult> {
  return inLoadScene(opts, async (scene, r, ids) => {
    const hanging = everyNth(ids, opts.hangShare);
    r.answer = (id, attempt) => (attempt === 1 && hanging.has(id) ? "hold" : 200);
    const normal = ids.filter((id) => !hanging.has(id));

    const flood = scene.flood(WARM_SECONDS + opts.seconds + TAIL_SECONDS);
    await sleep(WARM_SECONDS * 1000);
    const { sentAt, answeredAt } = await approveSteadily(scene, ids, opts.rate);
    const floodResult = await flood.done;
    // Hung ones come back 10 s after their 10 s timeout: wait for them too, a minute at most.
    await until(() => ids.every((id) => r.delivered.has(id)), 60_000);
    const rows = await scene.attempts();

    const arrived = normal.filter((id) => r.delivered.has(id));
    const since = (from: Map<number, number>) => (id: number) =>
      (r.delivered.get(id) ?? 0) - (from.get(id) ?? Number.NaN);
    const total = spread(arrived.map(since(answeredAt)));
    const sentToArrival = since(sentAt);
    const fromSending = spread(arrived.map(sentToArrival));
    const stagesOf = stageTimes(rows, sentAt, answeredAt, r.delivered);
    const slowestId = arrived.reduce<number | undefined>(
      (worst, id) => (worst === undefined || sentToArrival(id) > sentToArrival(worst) ? id : worst),
      undefined,
    );
    const slowestStages = slowestId === undefined ? undefined : stagesOf.get(slowestId);
    const column = (k: keyof Stages) => spread(arrived.map((id) => stagesOf.get(id)?.[k] ?? Number.NaN));
    return {
      rate: opts.rate,
      seconds: opts.seconds,
      hangShare: opts.hangShare,
      count: normal.length,
      hung: hanging.size,
      ...total,
      fromSending,
      missing: normal.length - arrived.length,
      hungDelivered: [...hanging].filter((id) => r.delivered.has(id)).length,
      maxHeld: r.maxHeld,
      approval: spread(ids.map((id) => (answeredAt.get(id) ?? Number.NaN) - (sentAt.get(id) ?? 0))),
      stages: { decision: column("decision"), afterAnswer: column("afterAnswer"), send: column("send") },
      attemptedBeforeAnswer: arrived.filter((id) => (stagesOf.get(id)?.afterAnswer ?? 0) < 0).length,
      slowest: {
        total: fromSending.max,
        decision: slowestStages?.decision ?? Number.NaN,
        afterAnswer: slowestStages?.afterAnswer ?? Number.NaN,
        send: slowestStages?.send ?? Number.NaN,
      },
      flood: floodResult,
    };
  });
}

/** Each delivered callback's stages, ms: its approval, its first attempt's start, its arrival. */
function stageTimes(
  rows: AttemptRow[],
  sentAt: Map<number, number>,
  answeredAt: Map<number, number>,
  delivered: Map<number, number>,
): Map<number, Record<keyof Stages, number>> {
  const out = new Map<number, Record<keyof Stages, number>>();
  for (const row of rows) {
    const id = row.transactionId;
    const sent = sentAt.get(id);
    const answered = answeredAt.get(id);
    const arrival = delivered.get(id);
    if (row.attempt !== 1 || row.startedAt === null) continue;
    if (sent === undefined || answered === undefined || arrival === undefined) continue;
    out.set(id, {
      decision: answered - sent,
      afterAnswer: row.startedAt - epoch(answered),
      send: epoch(arrival) - row.startedAt,
    });
  }
  return out;
}
