/**
 * /openapi.json and the reference page at /docs, built once, at their first request: rendering the
 * guides is slow enough that every start (and every test server) would otherwise feel it.
 * Public, no secrets in them.
 */
import { readFileSync } from "node:fs";
import type { FastifyInstance } from "fastify";
import { openApiDocument } from "./document.js";
import { renderReference } from "./reference.js";

const CSS = new URL("./docs.css", import.meta.url);
const HEADERS = {
  "cache-control": "public, max-age=300",
  "x-content-type-options": "nosniff",
  "content-security-policy":
    "default-src 'none'; style-src 'self'; img-src 'self'; base-uri 'none'; frame-ancestors 'none'",
};

export function registerDocsRoutes(app: FastifyInstance): void {
  const doc = once(openApiDocument);
  const json = once(() => JSON.stringify(doc()));
  const html = once(() => renderReference(doc()));
  const css = once(() => readFileSync(CSS, "utf8"));
  app.get("/openapi.json", async (_request, reply) =>
    reply.headers(HEADERS).type("application/json; charset=utf-8").send(json()),
  );
  app.get("/docs", async (_request, reply) =>
    reply.headers(HEADERS).type("text/html; charset=utf-8").send(html()),
  );
  app.get("/docs/docs.css", async (_request, reply) =>
    reply.headers(HEADERS).type("text/css; charset=utf-8").send(css()),
  );
}

function once<V>(make: () => V): () => V {
  let made: { value: V } | undefined;
  return () => {
    made ??= { value: make() };
    return made.value;
  };
}
