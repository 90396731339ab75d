import type { ServerResponse } from "node:http";
import type { FastifyReply } from "fastify";
import type { QueueNotices } from "../../console/queue-notices.js";
import { sendError } from "../envelope.js";

/**
 * The console's live stream (`GET /ops/api/events`, server-sent events): one `queue` event each
 * time the pending queues changed (console/queue-notices.ts), so the page asks for its queue again
 * at once. The events carry no data of their own.
 *
 * Each stream is checked against its session on every heartbeat (PAYINTAKE_CONSOLE_HEARTBEAT_MS,
 * 25 s: under the idle timeouts of common proxies) and ends once the session has
 * (signed out, expired, password changed); the page then polls, and a new stream needs a session.
 * A session may hold a few streams (tabs), an instance a bounded number in all; past either the
 * page polls as before. Every stream ends when the server stops, so a stop never waits for them,
 * and browsers reconnect (to another instance, where there is one).
 */
export const LIVE_STREAMS_PER_SESSION = 4;
export const LIVE_STREAMS_PER_INSTANCE = 500;
/** How long a browser waits before reconnecting a stream that ended (the EventSource default is 3 s too). */
const RETRY_MS = 3_000;

export interface LiveStreams {
  /** Answers with a stream for this session, or with the envelope's 429/503 past the limits. */
  open(reply: FastifyReply, session: string, stillValid: () => Promise<boolean>): FastifyReply;
  /** Streams open now. */
  readonly count: number;
  /** Ends every stream (the server is stopping). */
  closeAll(): void;
}

export function createLiveStreams(
  notices: QueueNotices,
  limits: { heartbeatMs: number; perSession: number; perInstance: number },
): LiveStreams {
  const ends = new Set<() => void>();
  const bySession = new Map<string, number>();

  return {
    open(reply, session, stillValid) {
      if (ends.size >= limits.perInstance)
        return sendError(reply, 503, "Too many live connections on this server; the console polls instead");
      const mine = bySession.get(session) ?? 0;
      if (mine >= limits.perSession)
        return sendError(reply, 429, "Too many live connections for this session; the console polls instead");
      bySession.set(session, mine + 1);

      // The answer is written here from now on, past Fastify's hooks: a stream has no end to settle.
      reply.hijack();
      const res: ServerResponse = reply.raw;
      res.writeHead(200, {
        "content-type": "text/event-stream; charset=utf-8",
        "cache-control": "no-store",
        "x-content-type-options": "nosniff",
        // Proxies that buffer answers (nginx) would hold the events back.
        "x-accel-buffering": "no",
      });
      res.write(`retry: ${RETRY_MS}\n\n`);

      let ended = false;
      const end = () => {
        if (ended) return;
        ended = true;
        clearInterval(beat);
        unsubscribe();
        ends.delete(end);
        const left = (bySession.get(session) ?? 1) - 1;
        if (left > 0) bySession.set(session, left);
        else bySession.delete(session);
        res.end();
      };
      const unsubscribe = notices.subscribe(() => {
        if (!ended) res.write("event: queue\ndata: changed\n\n");
      });
      const beat = setInterval(() => {
        stillValid().then(
          (valid) => {
            if (!valid) return end();
            if (!ended) res.write(": heartbeat\n\n");
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
      return reply;
    },
    get count() {
      return ends.size;
    },
    closeAll() {
      for (const end of [...ends]) end();
    },
  };
}
