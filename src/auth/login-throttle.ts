import { isIPv6 } from "node:net";

/**
 * Failed sign-ins per client address in a fixed window (password spraying across many emails).
 * An attempt counts from the moment it starts and is taken back when it succeeds, so a burst of
 * concurrent guesses cannot all pass the check before the first one fails. IPv6 clients are
 * counted per /64, the block one subscriber usually holds. Per instance, in memory.
 */
export interface LoginThrottle {
  /** Starts an attempt: refused with the wait, or allowed with `succeeded()` to call on success. */
  attempt(
    address: string,
    now: number,
  ): { ok: true; succeeded(): void } | { ok: false; retryAfterMs: number };
}

/** The first four groups of an IPv6 address; IPv4 (and IPv4-mapped IPv6) as it is. */
export function addressKey(address: string): string {
  if (!isIPv6(address) || address.startsWith("::ffff:")) return address;
  const [head = "", tail = ""] = address.split("::");
  const left = head ? head.split(":") : [];
  const right = address.includes("::") ? (tail ? tail.split(":") : []) : [];
  const groups = address.includes("::")
    ? [...left, ...Array(8 - left.length - right.length).fill("0"), ...right]
    : left;
  return `${groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, "").toLowerCase())
    .join(":")}::/64`;
}

export function createLoginThrottle(opts: { limit: number; windowMs: number }): LoginThrottle {
  const windows = new Map<string, { count: number; since: number }>();
  let sweptAt = 0;
  return {
    attempt(address, now) {
      // Forget finished windows at most once a minute, not on every attempt.
      if (now - sweptAt > 60_000) {
        sweptAt = now;
        for (const [k, w] of windows) if (now - w.since >= opts.windowMs) windows.delete(k);
      }
      const key = addressKey(address);
      let w = windows.get(key);
      if (!w || now - w.since >= opts.windowMs) {
        w = { count: 0, since: now };
        windows.set(key, w);
      }
      if (w.count >= opts.limit) return { ok: false, retryAfterMs: w.since + opts.windowMs - now };
      w.count += 1;
      const mine = w;
      return {
        ok: true,
        succeeded() {
          mine.count = Math.max(0, mine.count - 1);
        },
      };
    },
  };
}
