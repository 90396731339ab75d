/**
 * The SSRF guard for every outbound call to a URL someone registered (merchants' callbacks, payment
 * channels): it sits at the connection. Whatever the URL says (a name, a literal address, an
 * IPv4-mapped IPv6 form, a name that resolves to something else since it was registered), no
 * connection is opened to an address that is not public:
 * - a literal address in the URL is judged before connecting;
 * - a name is resolved by our own lookup, which hands the socket only the public addresses it
 *   resolves to (none: the connection fails before a packet is sent, so an internal host never sees
 *   a TCP handshake, nor a TLS ClientHello for https);
 * - and the address the socket actually connected to is judged again before a byte is written.
 * `allowPrivate` lifts it for local development and tests. Redirects are never followed (undici's
 * `request` does not follow them).
 */
import { type LookupAddress, type LookupOptions, lookup } from "node:dns";
import { isIP, type Socket } from "node:net";
import { Agent, buildConnector } from "undici";
import { isPublicAddress } from "./address-policy.js";

export class TargetNotAllowedError extends Error {
  readonly code = "PAYINTAKE_TARGET_NOT_ALLOWED";
}

type LookupCallback = (
  err: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/** dns.lookup with every non-public answer dropped; an error when none is left. */
function publicLookup(hostname: string, options: LookupOptions, callback: LookupCallback): void {
  lookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, []);
    const allowed = addresses.filter((a) => isPublicAddress(a.address));
    if (allowed.length === 0) {
      const seen = addresses.map((a) => a.address).join(", ") || "none";
      return callback(new TargetNotAllowedError(`address not allowed: ${seen}`), []);
    }
    if (options.all) return callback(null, allowed);
    const first = allowed[0] as LookupAddress;
    callback(null, first.address, first.family);
  });
}

/** The host as undici gives it (IPv6 literals may come in brackets), when it is an IP literal. */
function literalAddress(hostname: string): string | undefined {
  const bare = hostname.startsWith("[") && hostname.endsWith("]") ? hostname.slice(1, -1) : hostname;
  return isIP(bare) === 0 ? undefined : bare;
}

export function createGuardedAgent(opts: {
  allowPrivate: boolean;
  connectTimeoutMs: number;
  /** Waits for the answer's headers and body; unset, undici's defaults. */
  answerTimeoutMs?: number;
  connections: number;
}): Agent {
  // undici hands connector options it does not know (here `lookup`) to net.connect / tls.connect.
  const connect = buildConnector({
    timeout: opts.connectTimeoutMs,
    ...(opts.allowPrivate ? {} : { lookup: publicLookup }),
  } as buildConnector.BuildOptions);
  const guarded: buildConnector.connector = (options, callback) => {
    if (!opts.allowPrivate) {
      const literal = literalAddress(options.hostname);
      if (literal !== undefined && !isPublicAddress(literal))
        return callback(new TargetNotAllowedError(`address not allowed: ${literal}`), null);
    }
    connect(options, (err, socket) => {
      if (err || !socket) return callback(err ?? new Error("no socket"), null);
      const address = (socket as Socket).remoteAddress;
      if (!opts.allowPrivate && (address === undefined || !isPublicAddress(address))) {
        socket.destroy();
        return callback(new TargetNotAllowedError(`address not allowed: ${address ?? "unknown"}`), null);
      }
      callback(null, socket);
    });
  };
  return new Agent({
    connect: guarded,
    ...(opts.answerTimeoutMs === undefined
      ? {}
      : { headersTimeout: opts.answerTimeoutMs, bodyTimeout: opts.answerTimeoutMs }),
    keepAliveTimeout: 4_000,
    connections: opts.connections,
  });
}

/** The guard's refusal, when `err` is (or wraps) one. */
export function refusalOf(err: unknown): string | undefined {
  if (err instanceof TargetNotAllowedError) return err.message;
  const cause = (err as { cause?: unknown } | null)?.cause;
  return cause instanceof TargetNotAllowedError ? cause.message : undefined;
}
