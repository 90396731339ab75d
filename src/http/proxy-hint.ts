import type { FastifyBaseLogger, FastifyInstance, FastifyRequest, onRequestHookHandler } from "fastify";
import { isPublicAddress } from "../net/address-policy.js";

/**
 * Routes whose limits count per client address: console sign-in, the admin API's wrong tokens, the
 * payment page. The merchant API is limited per firm, and its hot path carries no hook for this.
 */
const COUNTED_PER_ADDRESS = /^\/(ops|admin|api\/pay)\//;

/**
 * Installed while PAYINTAKE_TRUST_PROXY is not set. Behind a reverse proxy, every request then seems
 * to come from the proxy: the per-address limits count all clients as one, and one person's wrong
 * passwords hold off everyone's sign-in for 15 minutes. Nothing in the requests can fix that safely
 * (a client may write X-Forwarded-For itself), so the operator is told, once per instance: at the
 * first request on such a route that carries X-Forwarded-For from a loopback or private address,
 * where proxies are. One from a public address is more likely a client writing the header itself:
 * it neither uses up the one warning nor gets its address named as the one to trust (an operator
 * following that advice would let that client forge its address). The header's
 * value is not logged (client addresses); the peer's address is.
 */
export function warnOfUntrustedProxy(app: FastifyInstance, log: FastifyBaseLogger): void {
  let warned = false;
  const hint: onRequestHookHandler = (request: FastifyRequest, _reply, done) => {
    if (!warned && request.headers["x-forwarded-for"] !== undefined && !isPublicAddress(request.ip)) {
      warned = true;
      log.warn(
        { proxy: request.ip },
        `requests arrive with X-Forwarded-For from ${request.ip} and PAYINTAKE_TRUST_PROXY is not set: every client behind it counts as ${request.ip} for the per-address limits (console sign-in, the admin token, the payment page), so one client's wrong passwords hold off everyone's sign-in for 15 minutes; if ${request.ip} is your reverse proxy, check that and set PAYINTAKE_TRUST_PROXY to its address`,
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
