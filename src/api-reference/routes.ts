import { readFileSync } from "node:fs";
import type { FastifyInstance } from "fastify";
import { openApiDocument } from "./document.js";
import { renderReference } from "./reference.js";

/** /openapi.json and the reference page at /docs, built once at start; public, no secrets in them. */
const CSS = new URL("./docs.css", import.meta.url);
const HEADERS = {
  "cache-control": "public, max-age=300",
  "x-content-type-options": "nosniff",
  "content-security-policy":
    "default-src 'none'; style-src 'self'; img-src 'self'; base-uri 'none'; frame-ancestors 'none'",
};

export function registerDocsRoutes(app: FastifyInstance): void {
  const doc = openApiDocument();
  const json = JSON.stringify(doc);
  const html = renderReference(doc);
  const css = readFileSync(CSS, "utf8");
  app.get("/openapi.json", async (_request, reply) =>
    reply.headers(HEADERS).type("application/json; charset=utf-8").send(json),
  );
  app.get("/docs", async (_request, reply) =>
    reply.headers(HEADERS).type("text/html; charset=utf-8").send(html),
  );
  app.get("/docs/docs.css", async (_request, reply) =>
    reply.headers(HEADERS).type("text/css; charset=utf-8").send(css),
  );
}
