/**
 * Probes for orchestrators. /healthz: the process answers (liveness; never touches the store, so a
 * database outage does not get every instance restarted). /readyz: the store answers within 2 s and
 * the instance is not draining (readiness: take it out of the load balancer, do not restart it),
 * and on PostgreSQL it holds its serving lock (without it, it seals no secret: a deposit with a
 * national id would fail; the lock is taken again within seconds, or after a key rotation the
 * instance exits).
 */
import type { FastifyInstance } from "fastify";
import type { HttpContext } from "../context.js";
import { sendPlainJson } from "../envelope.js";

const READY_TIMEOUT_MS = 2_000;

export function registerHealthRoutes(app: FastifyInstance, ctx: HttpContext, role: string): void {
  app.get("/healthz", async (_request, reply) => sendPlainJson(reply, 200, { status: "ok", role }));
  app.get("/readyz", async (_request, reply) => {
    if (ctx.draining) return sendPlainJson(reply, 503, { status: "draining" });
    if (!ctx.servingLockHeld()) return sendPlainJson(reply, 503, { status: "serving lock lost" });
    let timer: NodeJS.Timeout | undefined;
    const ready = await Promise.race([
      ctx.ping().then(
        () => true,
        () => false,
      ),
      new Promise<false>((resolve) => {
        timer = setTimeout(() => resolve(false), READY_TIMEOUT_MS);
      }),
    ]);
    clearTimeout(timer);
    return ready
      ? sendPlainJson(reply, 200, { status: "ready", role })
      : sendPlainJson(reply, 503, { status: "store unavailable" });
  });
}
