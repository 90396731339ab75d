import { randomBytes } from "node:crypto";
import { hashcodeOf, signCallback } from "../auth/signature.js";
import { nextStep } from "../domain/callback-schedule.js";
import { callbackBody } from "../domain/decisions.js";
import type { CallbackRepository, ClaimedCallback } from "../store/callbacks.js";
import type { CallbackSender, SendOutcome } from "./sender.js";

/**
 * The outbox worker: claims due callbacks, sends them, records every attempt and schedules the next.
 *
 * - Immediate on the happy path: a decision pokes the worker, no polling delay. Polling (every
 *   `pollMs`) finds retries that came due and rows other instances wrote.
 * - Never two sends of one row at once: a claim is a lease (SKIP LOCKED on PostgreSQL); a lease that
 *   outlives its worker (kill -9) runs out and the row is claimed again, so at-least-once holds.
 * - One slow receiver waits alone: at most `perOrigin` sends in flight per receiver origin, and
 *   `concurrency` in all. Rows are claimed a little ahead and wait in memory for a slot of their
 *   origin; a busy origin gets no new claims, so its backlog never takes another's place.
 * - Many slow receivers do not starve the rest: a receiver whose last attempt took at least
 *   `slowAfterMs` (it hangs, or answers late) gets one send at a time until an attempt is quick
 *   again (or for ten minutes), and slow receivers together, in flight or claimed, hold at most
 *   half of `concurrency`. The other half is for receivers that answer, whatever number of
 *   merchants hang (Svix and Stripe throttle failing endpoints the same way). A receiver is known
 *   slow only after its first slow attempt.
 * - Nothing is sent before the decision behind it (and the lease) are durable: `settle()`.
 */
/** How long a receiver that answered slowly is treated as slow, unless it answers quickly first. */
const SLOW_MEMORY_MS = 10 * 60_000;

export interface OutboxWorker {
  start(): void;
  /** Look for due callbacks now (after a decision). */
  poke(): void;
  /** Stops claiming; waits for sends in flight (each is bounded by the send timeout). */
  stop(): Promise<void>;
}

export interface OutboxWorkerOptions {
  concurrency: number;
  perOrigin: number;
  pollMs: number;
  leaseMs: number;
  /** An attempt that lasts this long marks its receiver slow (half the send timeout). */
  slowAfterMs: number;
}

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

export function createOutboxWorker(deps: OutboxWorkerDeps): OutboxWorker {
  const { callbacks, options } = deps;
  const owner = `worker-${process.pid}-${randomBytes(6).toString("hex")}`;
  const perOrigin = new Map<string, number>();
  /**
   * Receivers whose last attempt was slow, until when that is remembered (one that is never sent to
   * again is forgotten), and how many sends to slow receivers are in flight.
   */
  const slowUntil = new Map<string, number>();
  let slowInFlight = 0;
  const slowCap = Math.max(1, Math.floor(options.concurrency / 2));
  /** Where the next claim starts in the list of slow receivers, so each gets its turn. */
  let slowTurn = 0;
  const isSlow = (origin: string): boolean => slowUntil.has(origin);
  const inFlight = new Set<Promise<void>>();
  /** Claimed rows waiting for a free slot of their origin, oldest first; held under our lease. */
  const queued = new Map<string, { c: ClaimedCallback; leaseUntil: number }[]>();
  let queuedCount = 0;
  let timer: NodeJS.Timeout | undefined;
  let ticking = false;
  let again = false;
  let stopped = true;

  async function deliver(c: ClaimedCallback): Promise<void> {
    const key = await deps.secretFor(c.firm_id);
    const startedAt = deps.now();
    const attempt = c.attempts + 1;
    let result: SendOutcome;
    if ("unsignable" in key) {
      // Nothing can be sent, but it is an attempt all the same: on record with the reason, retried
      // on the schedule and in the end `failed`, where operators look for callbacks that do not
      // arrive (thrown, it was retried each time its lease ran out, for ever, with no trace but a
      // log line). The receiver's speed is not known from it.
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
      if (result.durationMs >= options.slowAfterMs) slowUntil.set(c.origin, deps.now() + SLOW_MEMORY_MS);
      else slowUntil.delete(c.origin);
    }
    const now = deps.now();
    const next = nextStep(result, c.step + 1, now, deps.random());
    const summary =
      next.outcome === "delivered"
        ? `HTTP ${result.status}`
        : next.outcome === "retry"
          ? `${next.reason}; next attempt ${new Date(next.at).toISOString()}`
          : `${next.reason}; failed`;
    await callbacks.recordAttempt({
      callbackId: c.id,
      owner,
      attempt,
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

  function launch(c: ClaimedCallback): void {
    perOrigin.set(c.origin, (perOrigin.get(c.origin) ?? 0) + 1);
    const countedSlow = isSlow(c.origin);
    if (countedSlow) slowInFlight++;
    const run: Promise<void> = deliver(c)
      .catch((err) => deps.log.error({ err, callback: c.id }, "callback attempt could not be recorded"))
      .finally(() => {
        if (countedSlow) slowInFlight--;
        const n = (perOrigin.get(c.origin) ?? 1) - 1;
        if (n === 0) perOrigin.delete(c.origin);
        else perOrigin.set(c.origin, n);
        inFlight.delete(run);
        if (!stopped) void tick();
      });
    inFlight.add(run);
  }

  /** Sends in flight plus rows waiting, for one receiver origin. */
  function load(origin: string): number {
    return (perOrigin.get(origin) ?? 0) + (queued.get(origin)?.length ?? 0);
  }

  /** How many sends one receiver may have in flight now. */
  function allowance(origin: string): number {
    return isSlow(origin) ? 1 : options.perOrigin;
  }

  /** Rows of slow receivers claimed and waiting: with those in flight, at most the slow share. */
  function slowQueued(): number {
    let n = 0;
    for (const [origin, rows] of queued) if (isSlow(origin)) n += rows.length;
    return n;
  }

  /** Whether a send to this receiver may start now (its own slots, and the slow receivers' share). */
  function mayStart(origin: string): boolean {
    if (inFlight.size >= options.concurrency) return false;
    if ((perOrigin.get(origin) ?? 0) >= allowance(origin)) return false;
    return !isSlow(origin) || slowInFlight < slowCap;
  }

  /** Starts queued rows wherever their origin has a free slot. */
  function launchQueued(): void {
    for (const [origin, rows] of queued) {
      while (rows.length > 0 && mayStart(origin)) {
        const next = rows.shift() as { c: ClaimedCallback; leaseUntil: number };
        queuedCount--;
        // Too little of the lease left for a whole attempt: give the row back rather than risk a
        // second worker sending it at the same time.
        if (deps.now() > next.leaseUntil - options.leaseMs / 2) {
          void callbacks.release(next.c.id, owner).catch(() => {});
          continue;
        }
        launch(next.c);
      }
      if (rows.length === 0) queued.delete(origin);
    }
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
        const room = options.concurrency * 2 - inFlight.size - queuedCount;
        if (room <= 0 || stopped) break;
        const now = deps.now();
        for (const [origin, until] of slowUntil) if (until <= now) slowUntil.delete(origin);
        // Receivers with no free slot get no claims. Slow ones share what is left of the slow
        // share, one row each, taking turns: rows claimed for them never fill the claim-ahead room
        // that receivers which answer need.
        const slowRoom = slowCap - slowInFlight - slowQueued();
        const slowList = [...slowUntil.keys()];
        const eligible = new Set<string>();
        for (let i = 0; i < slowList.length && eligible.size < slowRoom; i++) {
          const origin = slowList[(slowTurn + i) % slowList.length] as string;
          if (load(origin) < 1) eligible.add(origin);
        }
        slowTurn += Math.max(1, eligible.size);
        const excluded = new Set<string>();
        for (const origin of [...perOrigin.keys(), ...queued.keys()])
          if (!isSlow(origin) && load(origin) >= allowance(origin)) excluded.add(origin);
        for (const origin of slowList) if (!eligible.has(origin)) excluded.add(origin);
        const leaseUntil = now + options.leaseMs;
        const claimed = await callbacks.claimDue({
          now,
          leaseUntil,
          owner,
          limit: room,
          perOrigin: options.perOrigin * 2,
          excludeOrigins: [...excluded],
          slowOrigins: [...eligible],
          perSlowOrigin: 1,
        });
        // Nothing due, unless a decision poked us while the query ran: then `again` says look once more.
        if (claimed.length === 0) continue;
        await deps.settle();
        for (const c of claimed) {
          // One origin's backlog may fill a claim; keep only what it can start soon, so the room
          // left is for other receivers.
          const over = isSlow(c.origin)
            ? load(c.origin) >= 1 || slowInFlight + slowQueued() >= slowCap
            : load(c.origin) >= allowance(c.origin) * 2;
          if (over) {
            await callbacks.release(c.id, owner);
            continue;
          }
          const rows = queued.get(c.origin);
          if (rows) rows.push({ c, leaseUntil });
          else queued.set(c.origin, [{ c, leaseUntil }]);
          queuedCount++;
        }
        launchQueued();
        if (claimed.length === room) again = true;
      } while (again && !stopped);
    } catch (err) {
      deps.log.error({ err }, "claiming due callbacks failed; retrying at the next poll");
    } finally {
      ticking = false;
    }
  }

  return {
    start() {
      if (!stopped) return;
      stopped = false;
      timer = setInterval(() => void tick(), options.pollMs);
      timer.unref();
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
      await Promise.allSettled([...waiting.map((q) => callbacks.release(q.c.id, owner)), ...inFlight]);
    },
  };
}
