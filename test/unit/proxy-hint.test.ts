import type { FastifyBaseLogger, FastifyInstance } from "fastify";
import { describe, expect, it } from "vitest";
import { warnOfUntrustedProxy } from "../../src/http/proxy-hint.js";

type Hook = (
  request: { headers: Record<string, string>; ip: string },
  reply: unknown,
  done: () => void,
) => void;

/** The hook the hint puts on a route, and the warnings it logged. */
function hinted(url: string) {
  const warnings: unknown[][] = [];
  let onRoute: ((route: { url: string; onRequest?: Hook | Hook[] }) => void) | undefined;
  const app = {
    addHook: (_name: string, fn: typeof onRoute) => (onRoute = fn),
  } as unknown as FastifyInstance;
  warnOfUntrustedProxy(app, {
    warn: (...args: unknown[]) => warnings.push(args),
  } as unknown as FastifyBaseLogger);
  const route: { url: string; onRequest?: Hook | Hook[] } = { url };
  onRoute?.(route);
  const hooks = Array.isArray(route.onRequest) ? route.onRequest : route.onRequest ? [route.onRequest] : [];
  const send = (ip: string) => {
    for (const hook of hooks) hook({ headers: { "x-forwarded-for": "198.51.100.23" }, ip }, {}, () => {});
  };
  return { hooks, warnings, send };
}

describe("the untrusted proxy hint", () => {
  it("is not on the merchant API's routes", () => {
    expect(hinted("/paymentapi/v1/deposits").hooks).toHaveLength(0);
    expect(hinted("/ops/api/login").hooks).toHaveLength(1);
  });

  it("names a private or loopback peer once; a public peer that writes the header is not named as one to trust", () => {
    const { warnings, send } = hinted("/ops/api/login");
    send("93.184.216.34"); // public: a client writing X-Forwarded-For itself, most likely
    expect(warnings).toHaveLength(0);
    send("10.0.0.2");
    send("10.0.0.3");
    expect(warnings).toHaveLength(1);
    expect(String(warnings[0]?.[1])).toContain(
      "X-Forwarded-For from 10.0.0.2 and PAYINTAKE_TRUST_PROXY is not set",
    );
    expect(JSON.stringify(warnings)).not.toContain("198.51.100.23");
  });
});
