import { readdirSync, readFileSync } from "node:fs";
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { API_DOCS_MARKER, renderApiMarkdown } from "../../src/api-reference/markdown.js";
import { startTestServer, type TestServer } from "../support/harness.js";
import { addAccount, createFirm, send, type TestFirm } from "../support/merchant.js";

/**
 * docs/api.md, the reference a reader of the repository sees, describes this server: its generated
 * half is what the served /openapi.json renders to. And every request body the docs show is one the
 * server accepts, so an integrator who copies an example copies a working request.
 */
const DOCS = new URL("../../docs/", import.meta.url);
const READMES = ["../../README.md", "../../packages/client/README.md", "../../examples/merchant/README.md"];

function documents(): [string, string][] {
  const docs = readdirSync(DOCS)
    .filter((f) => f.endsWith(".md"))
    .map((f): [string, string] => [`docs/${f}`, readFileSync(new URL(f, DOCS), "utf8")]);
  const readmes = READMES.map((p): [string, string] => [
    p.slice(6),
    readFileSync(new URL(p, import.meta.url), "utf8"),
  ]);
  return [...docs, ...readmes];
}

/** The JSON objects in the docs' json blocks that are deposit or withdrawal requests. */
function requestExamples(): { where: string; body: Record<string, unknown> }[] {
  const out: { where: string; body: Record<string, unknown> }[] = [];
  for (const [where, text] of documents()) {
    for (const block of text.matchAll(/```json\n([\s\S]*?)```/g)) {
      const source = (block[1] as string).trim();
      // A block holds one object (pretty-printed) or one object per line.
      const candidates = source.startsWith("{") && !source.includes("}\n{") ? [source] : source.split("\n");
      for (const candidate of candidates) {
        let value: unknown;
        try {
          value = JSON.parse(candidate);
        } catch {
          continue;
        }
        const body = value as Record<string, unknown>;
        // A request has the payer and the reference; a callback or a transaction also has a status.
        const isRequest = body && typeof body === "object" && "reference" in body && "first_name" in body;
        if (isRequest && !("status" in body) && !("event" in body)) out.push({ where, body });
      }
    }
  }
  return out;
}

describe("the API reference in the repository", () => {
  let server: TestServer;
  let firm: TestFirm;

  beforeAll(async () => {
    server = await startTestServer("sqlite", { LOG_LEVEL: "warn" });
    firm = await createFirm(server);
    await addAccount(server, { min: "1", max: "1000000" });
  });
  afterAll(async () => {
    await server?.close();
  });

  it("docs/api.md holds what the served /openapi.json renders to (npm run docs:api writes it)", async () => {
    const res = await request(`${server.url}/openapi.json`);
    expect(res.statusCode).toBe(200);
    const served = renderApiMarkdown((await res.body.json()) as Parameters<typeof renderApiMarkdown>[0]);
    const page = readFileSync(new URL("api.md", DOCS), "utf8");
    const at = page.indexOf(API_DOCS_MARKER);
    expect(at).toBeGreaterThan(0);
    expect(page.slice(at + API_DOCS_MARKER.length).trim()).toBe(served.trim());
  });

  it("every deposit and withdrawal body shown in the docs is accepted as written", async () => {
    const examples = requestExamples();
    const kinds = new Set(examples.map((e) => ("iban" in e.body ? "withdrawal" : "deposit")));
    // The guides' withdrawal example and the reference's deposit examples at least.
    expect(examples.length).toBeGreaterThanOrEqual(4);
    expect([...kinds].sort()).toEqual(["deposit", "withdrawal"]);
    for (const [i, { where, body }] of examples.entries()) {
      // Only what must differ between two sends: a reference is used once, a user has one pending.
      const sent = {
        ...body,
        reference: `${String(body.reference)}-${i}`,
        user_id: `${String(body.user_id)}-${i}`,
      };
      const path = "iban" in body ? "/paymentapi/v1/withdrawals" : "/paymentapi/v1/deposits";
      const res = await send(server, firm, { path, body: sent });
      expect({ where, status: res.status, json: res.json }).toMatchObject({
        where,
        status: 200,
        json: { success: true },
      });
    }
  });
});
