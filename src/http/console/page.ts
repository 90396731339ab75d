import { readFileSync } from "node:fs";
import type { FastifyInstance } from "fastify";

/**
 * The console's page and assets at /ops: plain HTML, CSS and JavaScript from assets/console/, no
 * framework and no third-party requests, under a strict CSP. The page holds no data; everything it
 * shows comes from /ops/api with the operator's session.
 */
const ASSETS = new URL("../../../assets/console/", import.meta.url);
const asset = (name: string) => readFileSync(new URL(name, ASSETS), "utf8");

const HEADERS = {
  "cache-control": "no-store",
  "referrer-policy": "no-referrer",
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "content-security-policy":
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; " +
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
};

export function registerConsolePage(app: FastifyInstance): void {
  const html = asset("console.html");
  const js = asset("console.js");
  const css = asset("console.css");
  app.get("/ops", async (_request, reply) =>
    reply.headers(HEADERS).type("text/html; charset=utf-8").send(html),
  );
  app.get("/ops/assets/console.js", async (_request, reply) =>
    reply.headers(HEADERS).type("text/javascript; charset=utf-8").send(js),
  );
  app.get("/ops/assets/console.css", async (_request, reply) =>
    reply.headers(HEADERS).type("text/css; charset=utf-8").send(css),
  );
}
