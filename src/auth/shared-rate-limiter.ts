import { createHash } from "node:crypto";
import { memoized } from "./memo.js";
import type { RateLimiter } from "./rate-limiter.js";

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
 * If the database cannot be reached, each instance limits on its own until it can.
 */
export interface WindowStore {
  /** Adds `n` to the key's count in this window if that stays within `limit`; false when it would not. */
  reserve(key: string, windowStart: number, n: number, limit: number): Promise<boolean>;
  purge(before: number): Promise<void>;
}

export const WINDOW_MS = 2_000;

/** Hashed once per key, not once per request (a SHA-256 per request was 1.5 % of a deposit). */
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
  offline: boolean;
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
      g = { left: 0, spent: false, alone: 0, offline: false, reserving: undefined };
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

  /** Reserves the next share of the window for this key (one call in flight per key). */
  function reserve(k: string, g: Grant, limit: number): Promise<void> {
    g.reserving ??= (async () => {
      const at = window;
      const chunk = Math.max(1, Math.floor(limit / 16));
      try {
        let got = (await deps.store.reserve(k, at * WINDOW_MS, chunk, limit)) ? chunk : 0;
        // Less than a share left: one at a time, to the last request the limit allows.
        if (got === 0 && chunk > 1) got = (await deps.store.reserve(k, at * WINDOW_MS, 1, limit)) ? 1 : 0;
        g.left += got;
        if (got === 0) g.spent = true;
        g.offline = false;
      } catch (err) {
        g.offline = true;
        report(err);
      } finally {
        g.reserving = undefined;
      }
    })();
    return g.reserving;
  }

  const retryAfter = (now: number) => Math.max(1, Math.ceil(((window + 1) * WINDOW_MS - now) / 1000));

  const purge = setInterval(() => {
    deps.store.purge(deps.now() - 60_000).catch(report);
  }, 60_000);
  purge.unref();

  async function wait(k: string, limit: number): Promise<number> {
    for (;;) {
      const now = deps.now();
      roll(now);
      const g = grantOf(k);
      if (g.left > 0) {
        g.left--;
        return 0;
      }
      if (g.spent) return retryAfter(now);
      if (g.offline) {
        // For the rest of this window (the next one asks the database again).
        if (g.alone >= limit) return retryAfter(now);
        g.alone++;
        return 0;
      }
      await reserve(k, g, limit);
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
      return wait(k, limit);
    },
    stop() {
      clearInterval(purge);
    },
  };
}
