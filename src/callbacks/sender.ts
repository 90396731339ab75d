import type { Socket } from "node:net";
import { Agent, buildConnector, request } from "undici";
import { parseRetryAfter } from "../domain/callback-schedule.js";
import { isPublicAddress } from "../net/address-policy.js";

/**
 * Sends one callback over HTTP. The SSRF guard sits at the connection: whatever the URL says (a
 * name, a literal address, an IPv4-mapped IPv6 form, a name that resolved to something else since
 * the transaction was created), the address the socket actually connected to must be public, or
 * the socket is closed before a byte is written. Redirects are never followed.
 */
export interface SendOutcome {
  status?: number;
  error?: string;
  retryAfterMs?: number;
  /** The start of the receiver's answer, for operators (at most 500 characters, printable). */
  excerpt?: string;
  durationMs: number;
}

export interface CallbackSender {
  send(url: string, body: string, headers: Record<string, string>): Promise<SendOutcome>;
  close(): Promise<void>;
}

export interface SenderOptions {
  allowPrivate: boolean;
  /** The whole attempt (connect, send, answer headers) must finish within this; 10 s by contract. */
  timeoutMs: number;
  now(): number;
}

const EXCERPT_BYTES = 500;

export class TargetNotAllowedError extends Error {
  readonly code = "PAYINTAKE_TARGET_NOT_ALLOWED";
}

export function createCallbackSender(opts: SenderOptions): CallbackSender {
  const connect = buildConnector({ timeout: opts.timeoutMs });
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
  const agent = new Agent({
    connect: guarded,
    headersTimeout: opts.timeoutMs,
    bodyTimeout: opts.timeoutMs,
    keepAliveTimeout: 4_000,
    connections: 16,
  });

  return {
    async send(url, body, headers) {
      const started = performance.now();
      const elapsed = () => Math.round(performance.now() - started);
      try {
        const res = await request(url, {
          method: "POST",
          dispatcher: agent,
          headers,
          body,
          signal: AbortSignal.timeout(opts.timeoutMs),
        });
        const durationMs = elapsed();
        const retryAfter = res.headers["retry-after"];
        const excerpt = await readExcerpt(res.body);
        return {
          status: res.statusCode,
          durationMs,
          excerpt,
          retryAfterMs: parseRetryAfter(typeof retryAfter === "string" ? retryAfter : undefined, opts.now()),
        };
      } catch (err) {
        return { error: describe(err, opts.timeoutMs), durationMs: elapsed() };
      }
    },
    close: () => agent.close(),
  };
}

/** Reads at most a little of the answer, then drops the rest: a receiver's huge body costs us nothing. */
async function readExcerpt(
  body: AsyncIterable<Buffer> & { destroy(): unknown },
): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of body) {
      chunks.push(chunk);
      size += chunk.length;
      if (size >= EXCERPT_BYTES) break;
    }
  } catch {
    // The status already arrived; a body cut short only shortens the excerpt.
  } finally {
    body.destroy();
  }
  if (size === 0) return undefined;
  return Buffer.concat(chunks)
    .subarray(0, EXCERPT_BYTES)
    .toString("utf8")
    .replace(/[\u0000-\u001f\u007f\ufffd]+/g, " ")
    .trim();
}

function describe(err: unknown, timeoutMs: number): string {
  const e = err as { name?: string; code?: string; message?: string; cause?: unknown };
  if (e?.name === "TimeoutError" || e?.name === "AbortError" || e?.code?.includes("TIMEOUT")) {
    return `timed out after ${timeoutMs} ms`;
  }
  if (err instanceof TargetNotAllowedError) return err.message;
  if (e?.cause instanceof TargetNotAllowedError) return e.cause.message;
  const cause = e?.cause as { code?: string; message?: string } | undefined;
  const code = e?.code ?? cause?.code;
  const message = (e?.message ?? String(err)).slice(0, 200);
  return code ? `${code}: ${message}` : message;
}
