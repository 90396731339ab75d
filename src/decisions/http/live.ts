/**
 * The console's live stream (`GET /ops/api/events`, server-sent events): a `ready` event once the
 * stream is open, then one `queue` event each time the pending queues changed
 * (decisions/queue-notices.ts), so the page asks for its queue again at once. The events carry no
 * data of their own.
 *
 * A heartbeat is written every PAYINTAKE_CONSOLE_HEARTBEAT_MS (25 s: under the idle timeouts of
 * common proxies and of our own server), and the stream's session is checked then: the stream
 * ends once the session has (signed out, expired, ended by a password change), and a new one needs
 * a session. A few streams per session (tabs: over HTTP/1.1 a browser has six connections per
 * site, and the page needs some for itself), a few more per operator, and a bounded number per
 * instance; past any of them the page polls for its queue instead. Every stream ends when the server stops, so
 * a stop never waits for them; browsers then reconnect after a few seconds, spread out so that
 * they do not all come back at once.
 */
import type { ServerResponse } from "node:http";
import type { FastifyReply } from "fastify";
import { refusal } from "../../domain/refusal.js";
import { sendRefusal } from "../../http/operator-io.js";
import type { QueueNotices } from "../queue-notices.js";

export const LIVE_STREAMS_PER_SESSION = 3;
export const LIVE_STREAMS_PER_OPERATOR = 8;
export const LIVE_STREAMS_PER_INSTANCE = 500;
/** How long a browser waits before reconnecting a stream that ended, plus up to RETRY_SPREAD_MS. */
const RETRY_MS = 3_000;
const RETRY_SPREAD_MS = 4_000;

export interface LiveStreams {
  /** Answers with a stream, or with the envelope's 429/503 past the limits or once stopping. */
  open(
    reply: FastifyReply,
    who: { session: string; operator: number },
    stillValid: () => Promise<boolean>,
  ): FastifyReply;
  /** Streams open now. */
  readonly count: number;
  /** Ends every stream and refuses new ones (the server is stopping). */
  closeAll(): void;
}

/** Counts by key, forgetting keys that reach zero. */
class Tally {
  readonly #counts = new Map<string, number>();
  of(key: string): number {
    return this.#counts.get(key) ?? 0;
  }
  add(key: string, by: 1 | -1): void {
    const n = this.of(key) + by;
    if (n > 0) this.#counts.set(key, n);
    else this.#counts.delete(key);
  }
}

export function createLiveStreams(
  notices: QueueNotices,
  limits: { heartbeatMs: number; perSession: number; perOperator: number; perInstance: number },
): LiveStreams {
  const ends = new Set<() => void>();
  const bySession = new Tally();
  const byOperator = new Tally();
  let stopping = false;

  return {
    open(reply, who, stillValid) {
      if (stopping)
        return sendRefusal(
          reply,
          refusal("server_stopping", "The server is stopping; the console reconnects"),
        );
      if (ends.size >= limits.perInstance)
        return sendRefusal(
          reply,
          refusal(
            "too_many_live_connections",
            "Too many live connections on this server; the console polls instead",
          ),
        );
      const operator = String(who.operator);
      if (bySession.of(who.session) >= limits.perSession || byOperator.of(operator) >= limits.perOperator)
        return sendRefusal(
          reply,
          refusal(
            "too_many_live_connections_here",
            "Too many live connections for this operator or session; the console polls instead",
          ),
        );

      // The answer is written here from now on, past Fastify's hooks: a stream has no end to settle.
      reply.hijack();
      const res: ServerResponse = reply.raw;
      bySession.add(who.session, 1);
      byOperator.add(operator, 1);
      let ended = false;
      const write = (frame: string) => {
        if (!ended && res.writable) res.write(frame);
      };
      const end = () => {
        if (ended) return;
        ended = true;
        clearInterval(beat);
        unsubscribe();
        ends.delete(end);
        bySession.add(who.session, -1);
        byOperator.add(operator, -1);
        res.end();
      };
      const unsubscribe = notices.subscribe(() => write("event: queue\ndata: changed\n\n"));
      const beat = setInterval(() => {
        // Written whatever the check says or how long it takes, so no idle timeout cuts the stream.
        write(": heartbeat\n\n");
        stillValid().then(
          (valid) => {
            if (!valid) end();
          },
          // The store cannot say now (it is restarting): the stream stays, the next beat asks again.
          () => {},
        );
      }, limits.heartbeatMs);
      beat.unref();
      ends.add(end);
      // The answer's close, not the request's: a GET's request closes as soon as it has been read.
      res.on("close", end);
      res.on("error", end);
      // The client may have gone while its session was looked up: its close came before the listener.
      if (res.destroyed || res.socket === null || res.socket.destroyed) {
        end();
        return reply;
      }
      res.writeHead(200, {
        "content-type": "text/event-stream; charset=utf-8",
        "cache-control": "no-store",
        "x-content-type-options": "nosniff",
        // Proxies that buffer answers (nginx) would hold the events back.
        "x-accel-buffering": "no",
      });
      const retry = RETRY_MS + Math.floor(Math.random() * RETRY_SPREAD_MS);
      // `ready` tells the page the events come through (a proxy may pass the headers and hold the body).
      write(`retry: ${retry}\nevent: ready\ndata: open\n\n`);
      return reply;
    },
    get count() {
      return ends.size;
    },
    closeAll() {
      stopping = true;
      for (const end of [...ends]) end();
    },
  };
}
