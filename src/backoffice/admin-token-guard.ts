import { createHash, timingSafeEqual } from "node:crypto";
import { addressKey } from "../net/address-key.js";
import type { LoginWindowStore } from "../operators/login-throttle.js";

/**
 * The admin API's bearer token (PAYINTAKE_ADMIN_TOKEN), with a limit on wrong tokens per client
 * address: past `limit` wrong tokens in a window, the address is refused whatever it sends, the
 * right token too, until the window ends. Refusing the right token is what makes the limit hold: an
 * address still told which token is right could go on guessing. Counted in the store (the
 * console's login_windows table, under keys of their own), so every instance on one PostgreSQL
 * shares one count per address; IPv6 clients per /64.
 */
export type AdminTokenVerdict =
  | { ok: true }
  | { ok: false; reason: "invalid" }
  | { ok: false; reason: "throttled"; retryAfterMs: number; firstHere: boolean };

/** What the guard needs from the store (store/operators/login-windows.ts): the console throttle's, and a peek. */
export interface AdminTokenWindows extends Pick<LoginWindowStore, "claim" | "purge"> {
  fullSince(key: string, now: number, windowMs: number, limit: number): Promise<number | undefined>;
}

export const ADMIN_TOKEN_FAILURES = 20;
export const ADMIN_TOKEN_WINDOW_MS = 15 * 60_000;

export function createAdminTokenGuard(opts: {
  token: string;
  store: AdminTokenWindows;
  limit?: number;
  windowMs?: number;
  now(): number;
  /** A failed purge: the request itself is not affected. */
  onError(err: unknown): void;
}) {
  const expected = digest(Buffer.from(opts.token, "utf8"));
  const limit = opts.limit ?? ADMIN_TOKEN_FAILURES;
  const windowMs = opts.windowMs ?? ADMIN_TOKEN_WINDOW_MS;
  let sweptAt = Number.NEGATIVE_INFINITY;
  /**
   * Windows this instance has refused in (key → the window's start), so that a refusal is worth
   * one log line per address and window, not one per request an attacker cares to send.
   */
  const refusedIn = new Map<string, number>();
  const throttled = (key: string, since: number, now: number): AdminTokenVerdict => {
    const firstHere = refusedIn.get(key) !== since;
    refusedIn.set(key, since);
    return { ok: false, reason: "throttled", retryAfterMs: Math.max(1, since + windowMs - now), firstHere };
  };

  return {
    /** Judges one request's `Authorization` header from `address`. */
    async check(authorization: string | undefined, address: string): Promise<AdminTokenVerdict> {
      const now = opts.now();
      if (now - sweptAt > 60_000) {
        sweptAt = now;
        opts.store.purge(now - windowMs).catch(opts.onError);
        for (const [key, since] of refusedIn) if (since <= now - windowMs) refusedIn.delete(key);
      }
      const key = windowKey(address);
      if (matches(expected, authorization)) {
        const full = await opts.store.fullSince(key, now, windowMs, limit);
        return full === undefined ? { ok: true } : throttled(key, full, now);
      }
      const claim = await opts.store.claim(key, now, windowMs, limit);
      return claim.counted ? { ok: false, reason: "invalid" } : throttled(key, claim.since, now);
    },
  };
}

export type AdminTokenGuard = ReturnType<typeof createAdminTokenGuard>;

function matches(expected: Buffer, header: string | undefined): boolean {
  if (!header?.startsWith("Bearer ")) return false;
  // Digests of both: equal lengths whatever was sent, so the time taken says nothing of the token's.
  return timingSafeEqual(digest(Buffer.from(header.slice(7), "utf8")), expected);
}

const digest = (value: Buffer) => createHash("sha256").update(value).digest();

/** Its own key space in login_windows: an address's console sign-ins are counted apart. */
const windowKey = (address: string) =>
  createHash("sha256")
    .update(`admin-token\n${addressKey(address)}`)
    .digest("base64url")
    .slice(0, 22);
