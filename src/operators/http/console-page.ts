/**
 * The console's page and assets at /ops, as `npm run build` made them in dist/web/console/ (the Preact
 * app in web/console/, bundled by esbuild; page and stylesheet from web/console/). Strict CSP,
 * no third-party requests. The page holds no data: everything comes from /ops/api with the
 * operator's session.
 */
import { readFileSync } from "node:fs";
import type { FastifyInstance } from "fastify";
import { transportSecurity } from "../../http/transport-security.js";

// Three folders up from src/operators/http/ and from dist/operators/http/ alike: the package root.
const BUILT = new URL("../../../dist/web/console/", import.meta.url);

const HEADERS = {
  "cache-control": "no-store",
  "referrer-policy": "no-referrer",
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "content-security-policy":
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; " +
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
};

function built(name: string): string {
  try {
    return readFileSync(new URL(name, BUILT), "utf8");
  } catch {
    throw new Error(`the console is not built (dist/web/console/${name} is missing): run npm run build`);
  }
}

export function registerConsolePage(app: FastifyInstance): void {
  const html = built("console.html");
  const js = built("console.js");
  const css = built("console.css");
  app.get("/ops", async (request, reply) =>
    transportSecurity(request, reply).headers(HEADERS).type("text/html; charset=utf-8").send(html),
  );
  app.get("/ops/assets/console.js", async (_request, reply) =>
    reply.headers(HEADERS).type("text/javascript; charset=utf-8").send(js),
  );
  app.get("/ops/assets/console.css", async (_request, reply) =>
    reply.headers(HEADERS).type("text/css; charset=utf-8").send(css),
  );
}
