import type { FastifyInstance } from "fastify";
import type { Metrics } from "../../metrics/metrics.js";

/**
 * Prometheus metrics at /metrics, and the HTTP counters fed on every answer. The endpoint shows
 * counts only (no ids, references or secrets); keep it off the public load balancer all the same.
 */
export function registerMetrics(app: FastifyInstance, metrics: Metrics): void {
  app.addHook("onResponse", async (request, reply) => {
    const route = request.routeOptions.url ?? "unmatched";
    const method = request.method;
    metrics.httpRequests.inc({ route, method, status: String(reply.statusCode) });
    metrics.httpDuration.observe({ route, method }, reply.elapsedTime / 1000);
  });
  app.get("/metrics", async (_request, reply) =>
    reply.type(metrics.registry.contentType).send(await metrics.registry.metrics()),
  );
}
