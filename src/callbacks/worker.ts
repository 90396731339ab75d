/**
 * The outbox worker: claims due callbacks, sends them, records every attempt and schedules the next.
 *
 * - Immediate on the happy path: a decision pokes the worker, no polling delay. Polling (every
 *   `pollMs`) finds retries that came due and rows other instances wrote.
 * - Never two sends of one row at once while the worker lives: a claim is a short lease (SKIP
 *   LOCKED on PostgreSQL) that a heartbeat renews every third of `leaseMs` for every row the worker
 *   holds, in one statement. A killed worker's leases run out within `leaseMs` and another worker
 *   takes the rows over, so at-least-once holds and a crash costs seconds.
 * - One slow receiver waits alone: at most `perOrigin` counted sends in flight per receiver origin,
 *   and `concurrency` in all. Rows are claimed a little ahead and wait in memory for a slot of their
 *   origin; a busy origin gets no new claims, so its backlog never takes another's place.
 * - One hanging request holds its own slot and nothing else: an attempt in flight longer than its
 *   receiver usually takes (receiver-speed.ts) stops counting against the receiver's limit and the
 *   total, up to `hangingPerOrigin` such attempts per receiver and half of `concurrency` in all;
 *   past those caps it counts again. The receiver's other due callbacks keep flowing.
 * - Many slow receivers do not starve the rest: a receiver most of whose recent attempts hung gets
 *   one counted and one hanging send at a time until it answers quickly again (or for ten minutes
 *   without attempts), and slow receivers together, in flight or claimed, hold at most half of
 *   `concurrency` (Svix and Stripe throttle failing endpoints the same way).
 * - Nothing is sent before the decision behind it (and the lease) are durable: `settle()`.
 * - Nothing is sent on a lease with less than half of it left (a process stalled since its claim or
 *   its last renewal): the row goes back rather than risk a second worker sending it at once.
 * - An attempt cut by a worker's death keeps its number: the claim numbers the attempt, so the next
 *   claim of that row sends the next number and records the cut one as interrupted.
 */
import { randomBytes } from "node:crypto";
import { hashcodeOf, signCallback } from "../crypto/signature.js";
import type { ReceiverReport } from "../domain/receiver-report.js";
import type { CallbackRepository, ClaimedCallback } from "../store/callbacks/callbacks.js";
import { callbackBody } from "./message.js";
import { createReceiverLimits, type Flight, type ReceiverLimits } from "./receiver-limits.js";
import { nextStep } from "./schedule.js";
import type { CallbackSender, SendOutcome } from "./sender.js";
import type { OutboxWorkerOptions } from "./worker-options.js";

export interface OutboxWorker {
  start(): void;
  /** Look for due callbacks now (after a decision). */
  poke(): void;
  /** Stops claiming; waits for sends in flight (each is bounded by the send timeout). */
  stop(): Promise<void>;
  /** Receivers this worker has sent to lately, for operators (console, metrics). */
  receivers(): ReceiverReport[];
}

export type { OutboxWorkerOptions };

export interface OutboxLog {
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface OutboxWorkerDeps {
  callbacks: CallbackRepository;
  /**
   * The firm's current secret (a rotated secret signs the next attempt), or why none can sign its
   * callbacks now (its sealed secret does not open). Throws only when it cannot tell (the store is
   * unreachable): then nothing is recorded and the row is tried again once its lease runs out.
   */
  secretFor(firmId: number): Promise<{ secret: string } | { unsignable: string }>;
  sender: CallbackSender;
  settle(): Promise<void>;
  now(): number;
  random(): number;
  log: OutboxLog;
  options: OutboxWorkerOptions;
  /** Told the outcome of every attempt (metrics). */
  onAttempt?(outcome: "delivered" | "retry" | "failed"): void;
}

/** A claimed row waiting for a slot, and until when its lease runs. */
interface Waiting {
  c: ClaimedCallback;
  leaseUntil: number;
}

export function createOutboxWorker(deps: OutboxWorkerDeps): OutboxWorker {
  const { callbacks, options } = deps;
  const owner = `worker-${process.pid}-${randomBytes(6).toString("hex")}`;
  const limits = createReceiverLimits(options, deps.now);
  const flights = new Map<number, Flight>();
  const leases = new Map<number, number>(); // each row in flight: its lease as claimed or renewed
  const inFlight = new Set<Promise<void>>();
  /** Claimed rows waiting for a free slot of their origin, oldest first; held under our lease. */
  const queued = new Map<string, Waiting[]>();
  let queuedCount = 0;
  let timer: NodeJS.Timeout | undefined;
  let beat: NodeJS.Timeout | undefined;
  let [renewing, ticking, again, stopped] = [false, false, false, true];

  function launch(c: ClaimedCallback, leaseUntil: number): void {
    const flight = limits.started(c.origin);
    flights.set(c.id, flight);
    leases.set(c.id, leaseUntil);
    const run: Promise<void> = deliver(deps, owner, c, limits.finished, () => leases.get(c.id) ?? 0)
      .catch((err) => deps.log.error({ err, callback: c.id }, "callback attempt could not be recorded"))
      .finally(() => {
        limits.ended(flight);
        flights.delete(c.id);
        leases.delete(c.id);
        inFlight.delete(run);
        if (!stopped) void tick();
      });
    inFlight.add(run);
  }

  const load = (origin: string) => loadOf(limits, queued, origin);
  const slowQueued = () => slowQueuedOf(limits, queued);

  /** Starts queued rows wherever their origin has a free slot. */
  function launchQueued(): void {
    limits.moveHanging(flights.values());
    for (const [origin, rows] of queued) {
      while (rows.length > 0 && limits.mayStart(origin)) {
        const next = rows.shift() as Waiting;
        queuedCount--;
        // Too little of the lease left for the heartbeat to keep it: give the row back rather than
        // risk a second worker sending it at the same time.
        if (deps.now() > next.leaseUntil - options.leaseMs / 2) {
          void callbacks.release(next.c.id, owner).catch(() => {});
          continue;
        }
        launch(next.c, next.leaseUntil);
      }
      if (rows.length === 0) queued.delete(origin);
    }
  }

  /** Keeps a claimed row in memory if its receiver can start it soon; gives it back otherwise. */
  async function keepOrRelease(c: ClaimedCallback, leaseUntil: number): Promise<void> {
    // One origin's backlog may fill a claim; keep only what it can start soon, so the room left is
    // for other receivers.
    const over = limits.isSlow(c.origin)
      ? load(c.origin) >= 1 || limits.slowInFlight() + slowQueued() >= limits.slowCap
      : load(c.origin) >= limits.allowance(c.origin) * 2;
    if (over) return callbacks.release(c.id, owner);
    const rows = queued.get(c.origin);
    if (rows) rows.push({ c, leaseUntil });
    else queued.set(c.origin, [{ c, leaseUntil }]);
    queuedCount++;
  }

  async function tick(): Promise<void> {
    if (ticking) {
      again = true;
      return;
    }
    ticking = true;
    try {
      do {
        again = false;
        launchQueued();
        // Claim ahead, up to as many as could be in flight, so a freed slot never waits for a query.
        const room = options.concurrency * 2 - limits.countedTotal() - queuedCount;
        if (room <= 0 || stopped) break;
        const now = deps.now();
        limits.forgetIdle(now);
        const { excluded, slowOrigins } = claimScope(limits, queued);
        const leaseUntil = now + options.leaseMs;
        const claimed = await callbacks.claimDue({
          now,
          leaseUntil,
          owner,
          limit: room,
          perOrigin: options.perOrigin * 2,
          excludeOrigins: excluded,
          slowOrigins,
          perSlowOrigin: 1,
        });
        // Nothing due, unless a decision poked us while the query ran: then `again` says look once more.
        if (claimed.length === 0) continue;
        await deps.settle();
        for (const c of claimed) await keepOrRelease(c, leaseUntil);
        launchQueued();
        if (claimed.length === room) again = true;
      } while (again && !stopped);
    } catch (err) {
      deps.log.error({ err }, "claiming due callbacks failed; retrying at the next poll");
    } finally {
      ticking = false;
    }
  }

  async function heartbeat(): Promise<void> {
    if (renewing) return;
    renewing = true;
    try {
      // Read after the renewal: rows queued meanwhile are counted already.
      queuedCount -= await renewLeases(deps, owner, leases, queued);
    } catch (err) {
      deps.log.warn({ err }, "callback leases not renewed; trying again at the next heartbeat");
    } finally {
      renewing = false;
    }
  }

  return {
    start() {
      if (!stopped) return;
      stopped = false;
      timer = setInterval(() => void tick(), options.pollMs);
      timer.unref();
      beat = setInterval(() => void heartbeat(), Math.max(100, Math.floor(options.leaseMs / 3)));
      beat.unref();
      void tick();
    },
    poke() {
      if (!stopped) void tick();
    },
    async stop() {
      stopped = true;
      if (timer) clearInterval(timer);
      while (ticking) await new Promise((r) => setTimeout(r, 5));
      // Rows claimed but not started go back at once, for the next worker or the next start.
      const waiting = [...queued.values()].flat();
      queued.clear();
      queuedCount = 0;
      // The heartbeat keeps running until the attempts in flight end: their leases stay ours.
      await Promise.allSettled([...waiting.map((q) => callbacks.release(q.c.id, owner)), ...inFlight]);
      if (beat) clearInterval(beat);
    },
    receivers: () => limits.report(),
  };
}

/** One attempt: signs and sends the callback, then records the attempt and what follows from it. */
async function deliver(
  deps: OutboxWorkerDeps,
  owner: string,
  c: ClaimedCallback,
  finished: (origin: string, result: SendOutcome) => void,
  leaseUntil: () => number,
): Promise<void> {
  const key = await deps.secretFor(c.firm_id);
  // A process stalled since the claim (a busy machine, a long pause) may hold a lease about to run
  // out, and another worker may claim the row once it does: sent now, the receiver could get two
  // attempts of one callback at once. With less than half the lease left, the row goes back.
  if (deps.now() > leaseUntil() - deps.options.leaseMs / 2) {
    await deps.callbacks.release(c.id, owner);
    deps.log.warn(
      { callback: c.id, transaction: c.transaction_id },
      "callback lease nearly out before sending; given back",
    );
    return;
  }
  const startedAt = deps.now();
  // The claim's number: past any attempt a stopped worker had under way (recorded as interrupted).
  const attempt = c.claimed_attempt;
  if (attempt - c.attempts > 1) {
    deps.log.warn(
      { callback: c.id, transaction: c.transaction_id, attempt, interrupted: attempt - c.attempts - 1 },
      "callback attempt interrupted by a stopped worker; sending the next",
    );
  }
  let result: SendOutcome;
  if ("unsignable" in key) {
    // Nothing can be sent, but it is an attempt all the same: on record with the reason, retried
    // on the schedule and in the end `failed`, where operators look for callbacks that do not
    // arrive. The receiver's speed is not known from it.
    result = { error: key.unsignable, durationMs: 0 };
  } else {
    const body = callbackBody(c.payload, hashcodeOf(key.secret, c.hash_input));
    const timestamp = String(Math.floor(startedAt / 1000));
    result = await deps.sender.send(c.url, body, {
      "content-type": "application/json; charset=utf-8",
      "user-agent": "payintake-callbacks/1",
      "x-timestamp": timestamp,
      "x-signature": signCallback(key.secret, timestamp, body),
      "x-callback-id": String(c.id),
      "x-callback-attempt": String(attempt),
      "x-callback-event": c.event,
    });
    finished(c.origin, result);
  }
  const now = deps.now();
  const next = nextStep(result, c.step + 1, now, deps.random());
  const summary =
    next.outcome === "delivered"
      ? `HTTP ${result.status}`
      : next.outcome === "retry"
        ? `${next.reason}; next attempt ${new Date(next.at).toISOString()}`
        : `${next.reason}; failed`;
  await deps.callbacks.recordAttempt({
    callbackId: c.id,
    owner,
    attempt,
    recordedBefore: c.attempts,
    startedAt,
    durationMs: result.durationMs,
    httpStatus: result.status ?? null,
    error: result.error ?? null,
    excerpt: result.excerpt ?? null,
    outcome: next.outcome,
    nextAttemptAt: next.outcome === "retry" ? next.at : null,
    summary,
    now,
    scheduleVersion: c.schedule_version,
  });
  deps.onAttempt?.(next.outcome);
  if (next.outcome !== "delivered") {
    deps.log.warn(
      { callback: c.id, transaction: c.transaction_id, attempt, outcome: next.outcome, result: summary },
      "callback not delivered",
    );
  }
}

/**
 * Renews the lease of every row this worker holds, in flight or waiting, in one statement. A waiting
 * row no longer ours (a redelivery freed it, or our lease ran out while the store was unreachable)
 * leaves the waiting list; an attempt in flight on one ends as it would (its result is kept on
 * record only). Rows claimed while the renewal runs were not in it: their fresh lease stands.
 * Returns how many waiting rows it dropped.
 */
async function renewLeases(
  deps: OutboxWorkerDeps,
  owner: string,
  flying: Map<number, number>,
  queued: Map<string, Waiting[]>,
): Promise<number> {
  const ids = [...flying.keys()];
  for (const rows of queued.values()) for (const w of rows) ids.push(w.c.id);
  if (ids.length === 0) return 0;
  const leaseUntil = deps.now() + deps.options.leaseMs;
  const held = new Set(await deps.callbacks.renewLeases(ids, owner, leaseUntil));
  for (const id of held) if (flying.has(id)) flying.set(id, leaseUntil);
  const asked = new Set(ids);
  let dropped = 0;
  for (const [origin, rows] of queued) {
    const kept = rows.filter((w) => !asked.has(w.c.id) || held.has(w.c.id));
    for (const w of kept) if (held.has(w.c.id)) w.leaseUntil = leaseUntil;
    dropped += rows.length - kept.length;
    if (kept.length === 0) queued.delete(origin);
    else queued.set(origin, kept);
  }
  return dropped;
}

/** Counted sends in flight plus rows waiting, for one receiver origin. */
function loadOf(limits: ReceiverLimits, queued: Map<string, Waiting[]>, origin: string): number {
  return limits.counted(origin) + (queued.get(origin)?.length ?? 0);
}

/** Rows of slow receivers claimed and waiting: with those in flight, at most the slow share. */
function slowQueuedOf(limits: ReceiverLimits, queued: Map<string, Waiting[]>): number {
  let n = 0;
  for (const [origin, rows] of queued) if (limits.isSlow(origin)) n += rows.length;
  return n;
}

/** Which receivers a claim leaves out, and which slow ones it takes one row of. */
function claimScope(
  limits: ReceiverLimits,
  queued: Map<string, Waiting[]>,
): { excluded: string[]; slowOrigins: string[] } {
  const load = (origin: string) => loadOf(limits, queued, origin);
  const slowRoom = limits.slowCap - limits.slowInFlight() - slowQueuedOf(limits, queued);
  const slowList = limits.slowOrigins();
  const eligible = new Set<string>();
  const turn = limits.nextSlowTurn();
  for (let i = 0; i < slowList.length && eligible.size < slowRoom; i++) {
    const origin = slowList[(turn + i) % slowList.length] as string;
    if (load(origin) < 1) eligible.add(origin);
  }
  limits.advanceSlowTurn(eligible.size);
  const excluded = new Set<string>();
  for (const origin of [...limits.busyOrigins(), ...queued.keys()])
    if (!limits.isSlow(origin) && load(origin) >= limits.allowance(origin)) excluded.add(origin);
  for (const origin of slowList) if (!eligible.has(origin)) excluded.add(origin);
  return { excluded: [...excluded], slowOrigins: [...eligible] };
}
