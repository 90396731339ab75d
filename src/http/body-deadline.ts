/**
 * How long a request's body may take to arrive. Node's own limit on receiving a whole request is
 * one number for the whole server; a bank statement of 200 MB over a slow link needs far longer
 * than a deposit's body of a few hundred bytes. So Node's limit is set to the longest any route
 * allows (the upload's), and every other request with a body is held to the short one here: a
 * client that sends its body slowly is answered 408 and disconnected, as Node would have done.
 *
 * A route that allows longer says so in its config (`longBody: true`) and is then held to Node's
 * limit alone.
 */
import type { Socket } from "node:net";
import type { FastifyInstance, FastifyRequest } from "fastify";

export interface BodyDeadlineRouteConfig {
  longBody?: boolean;
}

const timers = new WeakMap<FastifyRequest, NodeJS.Timeout>();

/** A request announces a body by its length or by chunked encoding; without either it is complete. */
function hasBody(request: FastifyRequest): boolean {
  const h = request.headers;
  return (
    (h["content-length"] !== undefined && h["content-length"] !== "0") || h["transfer-encoding"] !== undefined
  );
}

export function registerBodyDeadline(
  app: FastifyInstance,
  deadlineMs: number,
  expired: (socket: Socket) => void,
): void {
  app.addHook("onRequest", (request, _reply, done) => {
    const config = request.routeOptions.config as BodyDeadlineRouteConfig | undefined;
    if (!config?.longBody && hasBody(request) && !request.raw.complete) {
      const raw = request.raw;
      const timer = setTimeout(() => {
        if (!raw.complete && !raw.socket.destroyed) expired(raw.socket);
      }, deadlineMs);
      timer.unref();
      timers.set(request, timer);
    }
    done();
  });
  app.addHook("onResponse", (request, _reply, done) => {
    const timer = timers.get(request);
    if (timer) clearTimeout(timer);
    done();
  });
}
