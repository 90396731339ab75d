/**
 * The rate limit shared by every instance on one PostgreSQL: each key gets `rate × 2` requests per
 * 2-second window (the single-instance bucket's burst, and its rate on average), counted in the
 * database. An instance never lets a request through on a count it merely hopes is shared: it
 * reserves a share of the window from the database first (a conditional upsert that cannot pass the
 * limit), then answers from its reservation without a round trip, and reserves again when it runs
 * low. So however a burst is spread over instances, together they let through no more than the
 * limit. (The first design let each instance spend the whole limit before it learned the others'
 * counts: three instances let a burst of three limits through.)
 *
 * A reservation is a sixteenth of the window's limit (one request near the end): what an instance
 * reserved and did not use is lost to the others until the window ends, a sixteenth at most each.
 * If the database cannot be reached, or takes more than half a second, each instance limits on its
 * own for a second, then asks again: no request ever waits on a database that does not answer.
 */
import { createHash } from "node:crypto";
import { memoized } from "../../crypto/memoized.js";
import type { RateLimiter } from "./rate-limiter.js";

export interface WindowStore {
  /** Adds `n` to the key's count in this window if that stays within `limit`; false when it would not. */
  reserve(key: string, windowStart: number, n: number, limit: number): Promise<boolean>;
  purge(before: number): Promise<void>;
}

export const WINDOW_MS = 2_000;
/** A reservation is one indexed upsert: a store slower than this is treated as down. */
const RESERVE_TIMEOUT_MS = 500;
/** How long the store is left alone after it failed or was slow. */
const OFFLINE_MS = 1_000;

/** Hashed once per key, not once per request: a SHA-256 per request shows in a deposit's CPU. */
const hashed = memoized(
  (plain) => createHash("sha256").update(plain).digest("base64url").slice(0, 22),
  10_000,
);
const keyOf = (key: number | string): string => hashed(String(key));

/** One key's standing in the current window, on this instance. */
interface Grant {
  /** Reserved from the database and not used yet. */
  left: number;
  /** The database refused even one more: the window is spent. */
  spent: boolean;
  /** Counted here alone, while the database cannot be reached. */
  alone: number;
  reserving: Promise<void> | undefined;
}

export interface SharedRateLimiter extends RateLimiter {
  stop(): void;
}

export function createSharedRateLimiter(deps: {
  store: WindowStore;
  now(): number;
  onError(err: unknown): void;
}): SharedRateLimiter {
  let window = Math.floor(deps.now() / WINDOW_MS);
  let grants = new Map<string, Grant>();

  function roll(now: number) {
    const current = Math.floor(now / WINDOW_MS);
    if (current === window) return;
    window = current;
    grants = new Map();
  }

  function grantOf(k: string): Grant {
    let g = grants.get(k);
    if (!g) {
      g = { left: 0, spent: false, alone: 0, reserving: undefined };
      grants.set(k, g);
    }
    return g;
  }

  let reportedAt = Number.NEGATIVE_INFINITY;
  /** During an outage every reservation fails: say so once a minute, not each time. */
  function report(err: unknown) {
    const now = deps.now();
    if (now - reportedAt < 60_000) return;
    reportedAt = now;
    deps.onError(err);
  }

  /**
   * Until then the database is not asked: it failed or was slow, and every key is limited here
   * alone (a request must never wait on a database that does not answer).
   */
  let offlineUntil = Number.NEGATIVE_INFINITY;

  /** The store's answer within RESERVE_TIMEOUT_MS, or a failure. */
  function inTime<T>(call: Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(
        () => reject(new Error("rate limit store did not answer in time")),
        RESERVE_TIMEOUT_MS,
      );
    });
    return Promise.race([call, late]).finally(() => clearTimeout(timer));
  }

  /** Reserves the next share of the window for this key (one call in flight per key). */
  function reserve(k: string, g: Grant, limit: number): Promise<void> {
    g.reserving ??= (async () => {
      const at = window;
      const chunk = Math.max(1, Math.floor(limit / 16));
      try {
        let got = (await inTime(deps.store.reserve(k, at * WINDOW_MS, chunk, limit))) ? chunk : 0;
        // Less than a share left: one at a time, to the last request the limit allows.
        if (got === 0 && chunk > 1)
          got = (await inTime(deps.store.reserve(k, at * WINDOW_MS, 1, limit))) ? 1 : 0;
        g.left += got;
        if (got === 0) g.spent = true;
      } catch (err) {
        offlineUntil = deps.now() + OFFLINE_MS;
        report(err);
      } finally {
        g.reserving = undefined;
      }
    })();
    return g.reserving;
  }

  const retryAfter = (now: number) => Math.max(1, Math.ceil(((window + 1) * WINDOW_MS - now) / 1000));

  /** While the database cannot be reached: this instance's own count, per window. */
  function alone(k: string, limit: number): number {
    const now = deps.now();
    roll(now);
    const g = grantOf(k);
    if (g.alone >= limit) return retryAfter(now);
    g.alone++;
    return 0;
  }

  const purge = setInterval(() => {
    deps.store.purge(deps.now() - 60_000).catch(report);
  }, 60_000);
  purge.unref();

  /**
   * Waits for a share. The grant is the one of the window the request came in: a share that
   * arrives after the window rolled still serves this request (asking again for the new window
   * could go on for as long as each answer takes longer than a window). Each round ends with a
   * share (used by this request or by others waiting with it), the window spent, or the store
   * found down (then alone); so the rounds end, and nothing passes the limit unreserved.
   */
  async function wait(k: string, g: Grant, limit: number): Promise<number> {
    for (;;) {
      await reserve(k, g, limit);
      if (g.left > 0) {
        g.left--;
        return 0;
      }
      if (g.spent) return retryAfter(deps.now());
      if (deps.now() < offlineUntil) return alone(k, limit);
    }
  }

  return {
    take(key, rate) {
      const now = deps.now();
      roll(now);
      // Stored hashed: keys include hosted-page tokens and payers' addresses.
      const k = keyOf(key);
      const limit = Math.max(1, Math.floor((rate * WINDOW_MS) / 1000));
      const g = grantOf(k);
      if (g.left > 0) {
        g.left--;
        // Running low: the next share is asked for before it is needed, off the request's path.
        if (g.left <= Math.floor(limit / 32) && !g.spent) void reserve(k, g, limit);
        return 0;
      }
      if (g.spent) return retryAfter(now);
      if (now < offlineUntil) return alone(k, limit);
      return wait(k, g, limit);
    },
    stop() {
      clearInterval(purge);
    },
  };
}
