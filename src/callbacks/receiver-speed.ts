/**
 * How fast one receiver (scheme, host and port) answers, as the outbox worker sees it, and what it
 * is allowed from that. Pure: the worker (worker.ts) feeds it every finished attempt.
 *
 * - An attempt *hangs* once it has been in flight longer than the receiver usually takes: four
 *   times its usual answer time, at least a fifth of `slowAfterMs` (1 s by default, so a receiver
 *   answering in milliseconds is not cut out of its limit by a garbage-collection pause) and at
 *   most `slowAfterMs` (half the send timeout). A hanging attempt stops counting against the
 *   receiver's limit (up to its hanging cap), so one hung request holds its own slot and nothing else.
 * - A receiver is *slow* when most of its last ten finished attempts hung, timed out or answered
 *   late: it gets one counted attempt and one hanging attempt at a time. Quick answers push slow
 *   ones out of the ten, and the full limit comes back as soon as half of them or fewer are.
 */
export interface ReceiverSpeed {
  /** Usual answer time (moving average of attempts that answered in time); undefined before any. */
  usualMs: number | undefined;
  /** The last finished attempts, newest last: true for one that hung or answered late. */
  recent: boolean[];
}

const RECENT = 10;
const USUAL_WEIGHT = 0.2;

export function newReceiverSpeed(): ReceiverSpeed {
  return { usualMs: undefined, recent: [] };
}

/** How long an attempt to this receiver may be in flight before it counts as hanging. */
export function hangAfterMs(speed: ReceiverSpeed, slowAfterMs: number): number {
  return Math.min(slowAfterMs, Math.max(slowAfterMs / 5, 4 * (speed.usualMs ?? 0)));
}

export function isSlow(speed: ReceiverSpeed): boolean {
  const slow = speed.recent.filter(Boolean).length;
  return slow * 2 > speed.recent.length;
}

/** Takes in one finished attempt; `answered` when a status line came back (not a timeout or refusal). */
export function recordFinished(
  speed: ReceiverSpeed,
  attempt: { durationMs: number; answered: boolean },
  slowAfterMs: number,
): void {
  const late = attempt.durationMs >= hangAfterMs(speed, slowAfterMs);
  speed.recent.push(late);
  if (speed.recent.length > RECENT) speed.recent.shift();
  if (attempt.answered && !late) {
    speed.usualMs =
      speed.usualMs === undefined
        ? attempt.durationMs
        : speed.usualMs * (1 - USUAL_WEIGHT) + attempt.durationMs * USUAL_WEIGHT;
  }
}
