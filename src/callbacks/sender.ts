/**
 * Sends one callback over HTTP, through the SSRF guard at the connection (net/guarded-agent.ts):
 * the address actually connected to must be public. Redirects are never followed.
 */
import { request } from "undici";
import { createGuardedAgent, refusalOf } from "../net/guarded-agent.js";
import { parseRetryAfter } from "./schedule.js";

export interface SendOutcome {
  status?: number;
  error?: string;
  retryAfterMs?: number;
  /** The start of the receiver's answer, for operators (its first 500 bytes as UTF-8, control characters as spaces). */
  excerpt?: string;
  durationMs: number;
}

export interface CallbackSender {
  send(url: string, body: string, headers: Record<string, string>): Promise<SendOutcome>;
  close(): Promise<void>;
}

export interface SenderOptions {
  allowPrivate: boolean;
  /**
   * The whole attempt (connect, send, the answer's status; the excerpt of its body is read for what
   * is left of it) must finish within this; 10 s by contract.
   */
  timeoutMs: number;
  /**
   * Attempts one receiver may have in flight at once (the worker's per-receiver limit and its cap
   * of hanging attempts together): each gets a connection of its own. An attempt waiting for one inside the HTTP client spends its timeout
   * there: with 16 connections and 24 allowed, 8 timed out without being sent.
   */
  perOrigin: number;
  now(): number;
}

const EXCERPT_BYTES = 500;

export function createCallbackSender(opts: SenderOptions): CallbackSender {
  const agent = createGuardedAgent({
    allowPrivate: opts.allowPrivate,
    connectTimeoutMs: opts.timeoutMs,
    answerTimeoutMs: opts.timeoutMs,
    connections: opts.perOrigin,
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
        const retryAfter = res.headers["retry-after"];
        const excerpt = await readExcerpt(res.body);
        return {
          status: res.statusCode,
          // Measured after the excerpt: a receiver that answers its status at once and then its
          // body a byte at a time holds the slot until the timeout, and must count as slow (timed to
          // its status line it would take no time at all, and never be throttled).
          durationMs: elapsed(),
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
  const refused = refusalOf(err);
  if (refused) return refused;
  const cause = e?.cause as { code?: string; message?: string } | undefined;
  const code = e?.code ?? cause?.code;
  const message = (e?.message ?? String(err)).slice(0, 200);
  return code ? `${code}: ${message}` : message;
}
