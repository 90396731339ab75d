import { createHash } from "node:crypto";
import { memoized } from "./memo.js";
import type { RateLimiter } from "./rate-limiter.js";

/**
 * The rate limit shared by every instance on one PostgreSQL, without a round trip per request:
 * each key gets `rate × 2` requests per 2-second window (the single-instance bucket's burst, and
 * its rate on average). An instance answers from what it knows (the total all instances had
 * reported at its last sync, plus what it let through since) and adds its own count to the store
 * every `syncMs` (and at once when a key spends a quarter of what is left), learning the others'
 * counts in the same statement. So the instances together may let a few more through than the
 * limit, by what arrives during one sync; never many more.
 */
export interface WindowStore {
  add(windowStart: number, counts: ReadonlyMap<string, number>): Promise<Map<string, number>>;
  purge(before: number): Promise<void>;
}

export const WINDOW_MS = 2_000;

/** Hashed once per key, not once per request (a SHA-256 per request was 1.5 % of a deposit). */
const hashed = memoized(
  (plain) => createHash("sha256").update(plain).digest("base64url").slice(0, 22),
  10_000,
);
const keyOf = (key: number | string): string => hashed(String(key));

export interface SharedRateLimiter extends RateLimiter {
  /** Reports this instance's counts and learns everyone's now (the timer does it every syncMs). */
  sync(): Promise<void>;
  stop(): void;
}

export function createSharedRateLimiter(deps: {
  store: WindowStore;
  now(): number;
  syncMs?: number;
  onError(err: unknown): void;
}): SharedRateLimiter {
  let window = Math.floor(deps.now() / WINDOW_MS);
  /** What every instance had counted in this window at the last sync. */
  let seen = new Map<string, number>();
  /** What this instance let through since its last sync. */
  let unsent = new Map<string, number>();
  let syncing: Promise<void> | undefined;
  let purgedAt = 0;

  function roll(now: number) {
    const current = Math.floor(now / WINDOW_MS);
    if (current === window) return;
    window = current;
    seen = new Map();
    unsent = new Map();
  }

  let reportedAt = Number.NEGATIVE_INFINITY;
  /** During an outage a sync fails ten times a second: say so once a minute, not each time. */
  function report(err: unknown) {
    const now = deps.now();
    if (now - reportedAt < 60_000) return;
    reportedAt = now;
    deps.onError(err);
  }

  async function sync() {
    if (syncing) return syncing;
    const sending = unsent;
    const at = window;
    unsent = new Map();
    syncing = (async () => {
      try {
        const totals = await deps.store.add(at * WINDOW_MS, sending);
        if (at === window) {
          for (const [key, total] of totals) seen.set(key, Math.max(seen.get(key) ?? 0, total));
        }
      } catch (err) {
        // Counted again at the next sync rather than lost: the limit stays a limit.
        if (at === window) for (const [key, n] of sending) unsent.set(key, (unsent.get(key) ?? 0) + n);
        report(err);
      }
      const now = deps.now();
      if (now - purgedAt > 60_000) {
        purgedAt = now;
        // Apart from the add: a failed purge must not send the counts twice.
        await deps.store.purge(now - 60_000).catch(report);
      }
      syncing = undefined;
    })();
    return syncing;
  }

  const timer = setInterval(() => void sync(), deps.syncMs ?? 100);
  timer.unref();

  return {
    take(key, rate) {
      const now = deps.now();
      roll(now);
      // Stored hashed: keys include hosted-page tokens and payers' addresses.
      const k = keyOf(key);
      const limit = (rate * WINDOW_MS) / 1000;
      const reported = seen.get(k) ?? 0;
      const mine = (unsent.get(k) ?? 0) + 1;
      if (reported + mine > limit) return Math.max(1, Math.ceil(((window + 1) * WINDOW_MS - now) / 1000));
      unsent.set(k, mine);
      // A key using up its budget fast reports at once, not only at the next tick: a burst spread
      // over several instances then overshoots by what one round trip lets through, not by 100 ms.
      if (mine >= Math.max(1, Math.floor((limit - reported) / 4))) void sync();
      return 0;
    },
    sync,
    stop() {
      clearInterval(timer);
    },
  };
}
