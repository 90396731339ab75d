import type { FastifyBaseLogger, FastifyInstance, FastifyRequest, onRequestHookHandler } from "fastify";

/**
 * Routes whose limits count per client address: console sign-in, the admin API's wrong tokens, the
 * payment page. The merchant API is limited per firm, and its hot path carries no hook for this.
 */
const COUNTED_PER_ADDRESS = /^\/(ops|admin|api\/pay)\//;

/**
 * Behind a reverse proxy that PAYINTAKE_TRUST_PROXY does not name, every request seems to come from
 * the proxy: the per-address limits then count all clients as one, and one person's wrong passwords
 * hold off everyone's sign-in for 15 minutes. Nothing in the requests can fix that safely (a client
 * may write X-Forwarded-For itself), so the operator is told, once per instance, what to set: the
 * first request on such a route that carries X-Forwarded-For from an address that is not trusted.
 * Its value is not logged (client addresses), the proxy's address is.
 */
export function warnOfUntrustedProxy(app: FastifyInstance, log: FastifyBaseLogger): void {
  let warned = false;
  const hint: onRequestHookHandler = (request: FastifyRequest, _reply, done) => {
    if (!warned && request.headers["x-forwarded-for"] !== undefined) {
      warned = true;
      log.warn(
        { proxy: request.ip },
        `requests arrive with X-Forwarded-For from ${request.ip}, which PAYINTAKE_TRUST_PROXY does not name: every client behind it counts as ${request.ip} for the per-address limits (console sign-in, the admin token, the payment page), so one client's wrong passwords hold off everyone's sign-in for 15 minutes; if ${request.ip} is your reverse proxy, set PAYINTAKE_TRUST_PROXY=${request.ip}`,
      );
    }
    done();
  };
  app.addHook("onRoute", (route) => {
    if (!COUNTED_PER_ADDRESS.test(route.url)) return;
    const own = route.onRequest;
    route.onRequest = own === undefined ? [hint] : [...(Array.isArray(own) ? own : [own]), hint];
  });
}
