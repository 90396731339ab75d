import type { ReceiverReport } from "../domain/receiver-report.js";
import {
  hangAfterMs,
  isSlow as isSlowSpeed,
  newReceiverSpeed,
  type ReceiverSpeed,
  recordFinished,
} from "./receiver-speed.js";
import type { SendOutcome } from "./sender.js";
import type { OutboxWorkerOptions } from "./worker-options.js";

/** How long a receiver's speed is remembered after its last attempt. */
const SPEED_MEMORY_MS = 10 * 60_000;

/** One attempt in flight. */
export interface Flight {
  origin: string;
  startedAt: number;
  /** Moved out of its receiver's limit (and the total) because it outlasted the usual time. */
  hanging: boolean;
  /** Counted in the slow receivers' share. */
  slowShare: boolean;
}

/**
 * The worker's bookkeeping of sends in flight per receiver: what counts against the limits, what
 * hangs beside them, which receivers are slow, and the slow receivers' share of the total.
 */
export function createReceiverLimits(options: OutboxWorkerOptions, now: () => number) {
  const speeds = new Map<string, { speed: ReceiverSpeed; lastAt: number }>();
  const counted = new Map<string, number>();
  const hanging = new Map<string, number>();
  let countedTotal = 0;
  let hangingTotal = 0;
  let slowInFlight = 0;
  const half = Math.max(1, Math.floor(options.concurrency / 2));
  /** Where the next claim starts in the list of slow receivers, so each gets its turn. */
  let slowTurn = 0;
  const add = (m: Map<string, number>, origin: string, d: number) => {
    const n = (m.get(origin) ?? 0) + d;
    if (n <= 0) m.delete(origin);
    else m.set(origin, n);
  };
  const speedOf = (origin: string) => speeds.get(origin)?.speed;
  const isSlow = (origin: string) => {
    const s = speedOf(origin);
    return s !== undefined && isSlowSpeed(s);
  };
  const allowance = (origin: string) => (isSlow(origin) ? 1 : options.perOrigin);
  const ended = (f: Flight): void => {
    if (f.hanging) {
      add(hanging, f.origin, -1);
      hangingTotal--;
      return;
    }
    add(counted, f.origin, -1);
    countedTotal--;
    if (f.slowShare) slowInFlight--;
  };
  const hangingCap = (origin: string) => (isSlow(origin) ? 1 : options.hangingPerOrigin);

  return {
    slowCap: half,
    isSlow,
    allowance,
    counted: (origin: string) => counted.get(origin) ?? 0,
    countedTotal: () => countedTotal,
    slowInFlight: () => slowInFlight,
    busyOrigins: () => counted.keys(),
    slowOrigins: () => [...speeds.keys()].filter(isSlow),
    nextSlowTurn: () => slowTurn,
    advanceSlowTurn(n: number) {
      slowTurn += Math.max(1, n);
    },
    /** Whether a send to this receiver may start now (its own slots, and the slow receivers' share). */
    mayStart(origin: string): boolean {
      if (countedTotal >= options.concurrency) return false;
      if ((counted.get(origin) ?? 0) >= allowance(origin)) return false;
      return !isSlow(origin) || slowInFlight < half;
    },
    started(origin: string): Flight {
      const slowShare = isSlow(origin);
      add(counted, origin, 1);
      countedTotal++;
      if (slowShare) slowInFlight++;
      return { origin, startedAt: now(), hanging: false, slowShare };
    },
    ended,
    /** Moves attempts that outlasted their receiver's usual time out of its limit, within the caps. */
    moveHanging(flights: Iterable<Flight>): void {
      const t = now();
      for (const f of flights) {
        if (f.hanging || hangingTotal >= half) continue;
        const speed = speedOf(f.origin);
        const after = speed ? hangAfterMs(speed, options.slowAfterMs) : options.slowAfterMs / 5;
        if (t - f.startedAt < after || (hanging.get(f.origin) ?? 0) >= hangingCap(f.origin)) continue;
        ended(f);
        f.hanging = true;
        add(hanging, f.origin, 1);
        hangingTotal++;
      }
    },
    finished(origin: string, result: SendOutcome): void {
      const entry = speeds.get(origin) ?? { speed: newReceiverSpeed(), lastAt: 0 };
      recordFinished(
        entry.speed,
        { durationMs: result.durationMs, answered: result.status !== undefined },
        options.slowAfterMs,
      );
      entry.lastAt = now();
      speeds.set(origin, entry);
    },
    /** A receiver not sent to for a while is forgotten (its speed starts afresh). */
    forgetIdle(t: number): void {
      for (const [origin, entry] of speeds)
        if (entry.lastAt + SPEED_MEMORY_MS <= t && !counted.has(origin) && !hanging.has(origin))
          speeds.delete(origin);
    },
    report(): ReceiverReport[] {
      const origins = new Set([...speeds.keys(), ...counted.keys(), ...hanging.keys()]);
      return [...origins].sort().map((origin) => ({
        origin,
        slow: isSlow(origin),
        inFlight: (counted.get(origin) ?? 0) + (hanging.get(origin) ?? 0),
        hanging: hanging.get(origin) ?? 0,
        usualMs: speedOf(origin)?.usualMs === undefined ? null : Math.round(speedOf(origin)?.usualMs ?? 0),
      }));
    },
  };
}

export type ReceiverLimits = ReturnType<typeof createReceiverLimits>;
