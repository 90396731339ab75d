import { randomBytes } from "node:crypto";
import { hashcodeOf, signCallback } from "../auth/signature.js";
import { nextStep } from "../domain/callback-schedule.js";
import { callbackBody } from "../domain/decisions.js";
import type { CallbackRepository, ClaimedCallback } from "../store/callbacks.js";
import type { CallbackSender } from "./sender.js";

/**
 * The outbox worker: claims due callbacks, sends them, records every attempt and schedules the next.
 *
 * - Immediate on the happy path: a decision pokes the worker, no polling delay. Polling (every
 *   `pollMs`) finds retries that came due and rows other instances wrote.
 * - Never two sends of one row at once: a claim is a lease (SKIP LOCKED on PostgreSQL); a lease that
 *   outlives its worker (kill -9) runs out and the row is claimed again, so at-least-once holds.
 * - One slow receiver waits alone: at most `perOrigin` sends in flight per receiver origin, and
 *   `concurrency` in all; rows for a busy origin are left for later, not queued behind it.
 * - Nothing is sent before the decision behind it (and the lease) are durable: `settle()`.
 */
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
}

export interface OutboxLog {
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface OutboxWorkerDeps {
  callbacks: CallbackRepository;
  /** The firm's current secret: a rotated secret signs the next attempt. */
  secretFor(firmId: number): Promise<string>;
  sender: CallbackSender;
  settle(): Promise<void>;
  now(): number;
  random(): number;
  log: OutboxLog;
  options: OutboxWorkerOptions;
}

export function createOutboxWorker(deps: OutboxWorkerDeps): OutboxWorker {
  const { callbacks, options } = deps;
  const owner = `worker-${process.pid}-${randomBytes(6).toString("hex")}`;
  const perOrigin = new Map<string, number>();
  const inFlight = new Set<Promise<void>>();
  let timer: NodeJS.Timeout | undefined;
  let ticking = false;
  let again = false;
  let stopped = true;

  async function deliver(c: ClaimedCallback): Promise<void> {
    const secret = await deps.secretFor(c.firm_id);
    const body = callbackBody(c.payload, hashcodeOf(secret, c.hash_input));
    const startedAt = deps.now();
    const timestamp = String(Math.floor(startedAt / 1000));
    const attempt = c.attempts + 1;
    const result = await deps.sender.send(c.url, body, {
      "content-type": "application/json; charset=utf-8",
      "user-agent": "payintake-callbacks/1",
      "x-timestamp": timestamp,
      "x-signature": signCallback(secret, timestamp, body),
      "x-callback-id": String(c.id),
      "x-callback-attempt": String(attempt),
      "x-callback-event": c.event,
    });
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
    });
    if (next.outcome !== "delivered") {
      deps.log.warn(
        { callback: c.id, transaction: c.transaction_id, attempt, outcome: next.outcome, result: summary },
        "callback not delivered",
      );
    }
  }

  function launch(c: ClaimedCallback): void {
    perOrigin.set(c.origin, (perOrigin.get(c.origin) ?? 0) + 1);
    const run: Promise<void> = deliver(c)
      .catch((err) => deps.log.error({ err, callback: c.id }, "callback attempt could not be recorded"))
      .finally(() => {
        const n = (perOrigin.get(c.origin) ?? 1) - 1;
        if (n === 0) perOrigin.delete(c.origin);
        else perOrigin.set(c.origin, n);
        inFlight.delete(run);
        if (!stopped) void tick();
      });
    inFlight.add(run);
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
        const free = options.concurrency - inFlight.size;
        if (free <= 0 || stopped) break;
        const busy = [...perOrigin].filter(([, n]) => n >= options.perOrigin).map(([origin]) => origin);
        const now = deps.now();
        const claimed = await callbacks.claimDue({
          now,
          leaseUntil: now + options.leaseMs,
          owner,
          limit: free,
          excludeOrigins: busy,
        });
        if (claimed.length === 0) break;
        await deps.settle();
        for (const c of claimed) {
          if (stopped || (perOrigin.get(c.origin) ?? 0) >= options.perOrigin) {
            await callbacks.release(c.id, owner);
            again = !stopped;
          } else {
            launch(c);
          }
        }
        if (claimed.length === free) again = true;
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
      await Promise.allSettled([...inFlight]);
    },
  };
}
