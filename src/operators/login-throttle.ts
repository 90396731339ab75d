import { createHash } from "node:crypto";
import { addressKey } from "../net/address-key.js";

/**
 * Failed sign-ins per client address in a window (password spraying across many emails), counted
 * in the store, so every instance on one PostgreSQL shares one count per address. An attempt counts
 * from the moment it starts and is taken back when it succeeds, so a burst of concurrent guesses
 * cannot all pass the check before the first one fails. IPv6 clients are counted per /64, the block
 * one subscriber usually holds. Addresses are stored hashed.
 */
export interface LoginThrottle {
  /** Starts an attempt: refused with the wait, or allowed with `succeeded()` to call on success. */
  attempt(
    address: string,
    now: number,
  ): Promise<{ ok: true; succeeded(): Promise<void> } | { ok: false; retryAfterMs: number }>;
}

/** What the throttle needs from the store (store/operators/login-windows.ts). */
export interface LoginWindowStore {
  claim(
    key: string,
    now: number,
    windowMs: number,
    limit: number,
  ): Promise<{ counted: boolean; since: number }>;
  giveBack(key: string, since: number): Promise<void>;
  purge(before: number): Promise<void>;
}

export function createLoginThrottle(opts: {
  limit: number;
  windowMs: number;
  store: LoginWindowStore;
  /** A failed purge or take-back: the sign-in itself is not affected. */
  onError(err: unknown): void;
}): LoginThrottle {
  let sweptAt = Number.NEGATIVE_INFINITY;
  return {
    async attempt(address, now) {
      // Forget finished windows at most once a minute per instance, not on every attempt.
      if (now - sweptAt > 60_000) {
        sweptAt = now;
        opts.store.purge(now - opts.windowMs).catch(opts.onError);
      }
      const key = createHash("sha256").update(addressKey(address)).digest("base64url").slice(0, 22);
      const claim = await opts.store.claim(key, now, opts.windowMs, opts.limit);
      // Never 0: the window may have started again between the claim and reading its start.
      if (!claim.counted) return { ok: false, retryAfterMs: Math.max(1, claim.since + opts.windowMs - now) };
      return {
        ok: true,
        async succeeded() {
          await opts.store.giveBack(key, claim.since).catch(opts.onError);
        },
      };
    },
  };
}
