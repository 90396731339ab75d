/**
 * Prometheus metrics at /metrics, and the HTTP counters fed on every answer. The endpoint shows
 * counts only (no ids, references or secrets), yet it tells volumes and channel names, and a scrape
 * reads the store: it answers a scraper on the same host (loopback), or one that presents
 * PAYINTAKE_METRICS_TOKEN as a bearer token; anyone else gets the 404 of an unknown path.
 */
import { timingSafeEqual } from "node:crypto";
import type { FastifyInstance, FastifyRequest } from "fastify";
import { refusal } from "../../domain/refusal.js";
import type { Metrics } from "../../metrics/metrics.js";
import { sendRefusal } from "../operator-io.js";

const LOOPBACK = /^(127\.|::1$|::ffff:127\.)/;
/** A Host naming this host's loopback: `localhost`, `127.x.y.z` or `[::1]`, with any port. */
const LOOPBACK_HOST = /^(localhost|127\.\d{1,3}\.\d{1,3}\.\d{1,3}|\[::1\])(:\d{1,5})?$/i;

function allowed(request: FastifyRequest, token: Buffer | undefined): boolean {
  // Loopback only when nothing forwarded the request: a reverse proxy on this host would otherwise
  // make every outside client look local. And only for a Host that names loopback: a web page a
  // browser on this host opened can rebind its own name to 127.0.0.1 and read what it fetches, but
  // its requests carry its name as the Host.
  const forwarded =
    request.headers["x-forwarded-for"] !== undefined || request.headers.forwarded !== undefined;
  const host = request.headers.host ?? "";
  if (LOOPBACK.test(request.ip) && !forwarded && LOOPBACK_HOST.test(host)) return true;
  const header = request.headers.authorization;
  if (!token || !header?.startsWith("Bearer ")) return false;
  const given = Buffer.from(header.slice(7), "utf8");
  return given.length === token.length && timingSafeEqual(given, token);
}

export function registerMetrics(
  app: FastifyInstance,
  metrics: Metrics,
  metricsToken: string | undefined,
): void {
  const token = metricsToken === undefined ? undefined : Buffer.from(metricsToken, "utf8");
  app.addHook("onResponse", async (request, reply) => {
    const route = request.routeOptions.url ?? "unmatched";
    const method = request.method;
    metrics.httpRequests.inc({ route, method, status: String(reply.statusCode) });
    // A stream (the console's live queue) lasts hours: it would swamp the requests' durations.
    if ((request.routeOptions.config as { longLived?: boolean }).longLived) return;
    metrics.httpDuration.observe({ route, method }, reply.elapsedTime / 1000);
  });
  app.get("/metrics", async (request, reply) => {
    if (!allowed(request, token)) return sendRefusal(reply, refusal("not_found", "Not found"));
    return reply.type(metrics.registry.contentType).send(await metrics.registry.metrics());
  });
}
