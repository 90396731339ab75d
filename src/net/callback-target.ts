import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import { isLocalName, isPublicAddress } from "./address-policy.js";

export type TargetCheck = (url: string) => Promise<boolean>;

const CACHE_MS = 60_000;

/**
 * The check made when a callback URL is registered or resolved for a new transaction. Literal
 * addresses are judged directly (the WHATWG parser has already turned forms like 127.1 and
 * 0x7f000001 into dotted quads); names are resolved and every address must be public. A name that
 * does not resolve now is let through: the send-time guard judges the address actually connected to,
 * and that check is the authoritative one.
 */
export function createCallbackTargetCheck(opts: { allowPrivate: boolean }): TargetCheck {
  const cache = new Map<string, { allowed: boolean; until: number }>();

  async function hostAllowed(hostname: string): Promise<boolean> {
    const bare = hostname.startsWith("[") ? hostname.slice(1, -1) : hostname;
    if (isIP(bare)) return isPublicAddress(bare);
    if (isLocalName(bare)) return false;
    const cached = cache.get(bare);
    if (cached && cached.until > Date.now()) return cached.allowed;
    let allowed = true;
    try {
      const addresses = await lookup(bare, { all: true, verbatim: true });
      allowed = addresses.every((a) => isPublicAddress(a.address));
    } catch {
      allowed = true;
    }
    if (cache.size > 10_000) cache.clear();
    cache.set(bare, { allowed, until: Date.now() + CACHE_MS });
    return allowed;
  }

  return async (raw: string) => {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      return false;
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") return false;
    if (url.username !== "" || url.password !== "") return false;
    if (opts.allowPrivate) return true;
    return hostAllowed(url.hostname);
  };
}
