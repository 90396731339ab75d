import type { Socket } from "node:net";
import { Agent, buildConnector } from "undici";
import { isPublicAddress } from "./address-policy.js";

/**
 * The SSRF guard for every outbound call to a URL someone registered (merchants' callbacks, payment
 * channels): it sits at the connection. Whatever the URL says (a name, a literal address, an
 * IPv4-mapped IPv6 form, a name that resolves to something else since it was registered), the
 * address the socket actually connected to must be public, or the socket is closed before a byte
 * is written. `allowPrivate` lifts it for local development and tests. Redirects are never followed
 * (undici's `request` does not follow them).
 */
export class TargetNotAllowedError extends Error {
  readonly code = "PAYINTAKE_TARGET_NOT_ALLOWED";
}

export function createGuardedAgent(opts: {
  allowPrivate: boolean;
  connectTimeoutMs: number;
  /** Waits for the answer's headers and body; unset, undici's defaults. */
  answerTimeoutMs?: number;
  connections: number;
}): Agent {
  const connect = buildConnector({ timeout: opts.connectTimeoutMs });
  const guarded: buildConnector.connector = (options, callback) =>
    connect(options, (err, socket) => {
      if (err || !socket) return callback(err ?? new Error("no socket"), null);
      const address = (socket as Socket).remoteAddress;
      if (!opts.allowPrivate && (address === undefined || !isPublicAddress(address))) {
        socket.destroy();
        return callback(new TargetNotAllowedError(`address not allowed: ${address ?? "unknown"}`), null);
      }
      callback(null, socket);
    });
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
