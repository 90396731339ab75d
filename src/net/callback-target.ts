import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import { isLocalName, isPublicAddress } from "./address-policy.js";

export type TargetCheck = (url: string) => Promise<boolean>;

const CACHE_MS = 60_000;
/** A resolver slower than this is not waited for (the deposit goes on; see below). */
const LOOKUP_TIMEOUT_MS = 2_000;

type Resolve = (hostname: string) => Promise<readonly { address: string }[]>;
const systemResolve: Resolve = (hostname) => lookup(hostname, { all: true, verbatim: true });

/**
 * The check made when a callback URL is registered or resolved for a new transaction. Literal
 * addresses are judged directly (the WHATWG parser has already turned forms like 127.1 and
 * 0x7f000001 into dotted quads); names are resolved and every address must be public. A name that
 * does not resolve now, or not within two seconds, is let through: the send-time guard judges the
 * address actually connected to, and that check is the authoritative one. Deposits naming one host
 * at the same moment share one lookup: a webhook whose DNS hangs would otherwise hold every one of
 * them, and take one of libuv's four threads (which password hashing also uses) each.
 */
export function createCallbackTargetCheck(opts: {
  allowPrivate: boolean;
  resolve?: Resolve;
  lookupTimeoutMs?: number;
}): TargetCheck {
  const resolve = opts.resolve ?? systemResolve;
  const timeoutMs = opts.lookupTimeoutMs ?? LOOKUP_TIMEOUT_MS;
  const cache = new Map<string, { allowed: boolean; until: number }>();
  const inFlight = new Map<string, Promise<boolean>>();

  async function judge(bare: string): Promise<boolean> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<undefined>((done) => {
      timer = setTimeout(() => done(undefined), timeoutMs);
    });
    try {
      const addresses = await Promise.race([resolve(bare), late]);
      return addresses === undefined || addresses.every((a) => isPublicAddress(a.address));
    } catch {
      return true;
    } finally {
      clearTimeout(timer);
    }
  }

  async function hostAllowed(hostname: string): Promise<boolean> {
    const bare = hostname.startsWith("[") ? hostname.slice(1, -1) : hostname;
    if (isIP(bare)) return isPublicAddress(bare);
    if (isLocalName(bare)) return false;
    const cached = cache.get(bare);
    if (cached && cached.until > Date.now()) return cached.allowed;
    let pending = inFlight.get(bare);
    if (!pending) {
      pending = judge(bare).then((allowed) => {
        inFlight.delete(bare);
        if (cache.size > 10_000) cache.clear();
        cache.set(bare, { allowed, until: Date.now() + CACHE_MS });
        return allowed;
      });
      inFlight.set(bare, pending);
    }
    return pending;
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
