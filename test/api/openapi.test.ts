import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { turkeyDayOf } from "../../src/domain/turkey-time.js";
import { BALANCE_PAGE } from "../../src/intake/http/balance.js";
import { MERCHANT_PATHS } from "../../src/intake/http/paths.js";
import { REJECTIONS } from "../../src/intake/http/rejection-responses.js";
import { DAY_MOVEMENTS } from "../../src/ledger/day-report.js";
import { MOVEMENT_TYPES } from "../../src/ledger/merchant-balance.js";
import { STORES, startTestServer, type TestServer } from "../support/harness.js";
import { addAccount, createFirm, send, type TestFirm } from "../support/merchant.js";

/**
 * The document and the server must agree: every route is documented and every documented route
 * exists; requests built from the document's examples succeed, and each documented field rule
 * (required, lengths, enums) is the rule the server enforces, with the message naming the field.
 */
type Schema = Record<string, any>;
const SRC = new URL("../../src/", import.meta.url).pathname;

function sourcesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourcesUnder(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : [],
  );
}

/** A value of exactly `n` code points that passes the field's character rules. */
function textOf(n: number, key: string): string {
  const letters = "abcdefghijklmnopqrstuvwxyz";
  const random = [...randomBytes(n)].map((b) => letters[b % 26]).join("");
  return key === "return_url" ? `https://x.example/${random}`.slice(0, n) : random;
}

describe.each(STORES)("OpenAPI document and server agree (%s)", (kind) => {
  let server: TestServer;
  let firm: TestFirm;
  let doc: Schema;

  beforeAll(async () => {
    server = await startTestServer(kind, { LOG_LEVEL: "warn" });
    firm = await createFirm(server);
    await addAccount(server, { min: "1", max: "100000" });
    const res = await request(`${server.url}/openapi.json`);
    expect(res.statusCode).toBe(200);
    doc = (await res.body.json()) as Schema;
  });
  afterAll(async () => {
    await server?.close();
  });

  const fresh = (body: Schema): Schema => ({
    ...body,
    reference: `OA-${randomBytes(6).toString("hex")}`,
    user_id: `U-${randomBytes(6).toString("hex")}`,
  });
  const operation = (path: string, method: string) => doc.paths[path.replace(/:([a-z_]+)/g, "{$1}")][method];
  const schemaOf = (ref: string) => doc.components.schemas[ref.split("/").pop() as string];

  it("is OpenAPI 3.1 and documents exactly the routes the server registers", () => {
    expect(doc.openapi).toBe("3.1.0");
    const documented = Object.entries(doc.paths).flatMap(([p, item]) =>
      Object.keys(item as object).map((m) => `${m.toUpperCase()} ${p}`),
    );
    // Every registered path is documented and nothing else is (methods: see the next test).
    const paths = new Set(documented.map((d) => d.split(" ")[1]));
    expect(paths).toEqual(
      new Set(Object.values(MERCHANT_PATHS).map((p) => p.replace(/:([a-z_]+)/g, "{$1}"))),
    );
    // No route under /paymentapi/v1 is registered except through MERCHANT_PATHS.
    for (const file of sourcesUnder(SRC).filter((f) => /\/http\/|routes\.ts$/.test(f))) {
      if (file.endsWith("intake/http/paths.ts")) continue;
      expect(readFileSync(file, "utf8"), file).not.toMatch(/["'`]\/paymentapi\/v1/);
    }
  });

  it("every documented operation exists and is authenticated", async () => {
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const method of Object.keys(item as object)) {
        const url = path.replace("{id}", "1").replace("{reference}", "R-1").replace("{date}", "2026-01-01");
        const res = await request(`${server.url}${url}`, { method: method.toUpperCase() as "GET" });
        expect(res.statusCode, `${method} ${path}`).toBe(401);
        expect(await res.body.json()).toEqual({ success: false, message: "Invalid API key" });
      }
    }
  });

  for (const [path, name] of [
    [MERCHANT_PATHS.deposits, "direct deposit"],
    [MERCHANT_PATHS.withdrawals, "withdrawal"],
  ] as const) {
    it(`the ${name} example succeeds and its answer has the documented shape`, async () => {
      const op = operation(path, "post");
      const content = op.requestBody.content["application/json"];
      const example = content.examples?.direct.value ?? content.example;
      const res = await send(server, firm, { path, body: fresh(example) });
      expect(res.status, res.text).toBe(200);
      const shape = (op.responses["200"].content["application/json"].schema.oneOf?.[0] ??
        op.responses["200"].content["application/json"].schema) as Schema;
      const accepted = schemaOf(shape.$ref);
      // A firm that has not opted in to anything optional (payment_code) gets exactly the required fields.
      expect(Object.keys(res.json).sort()).toEqual([...(accepted.required as string[])].sort());
      for (const k of Object.keys(res.json)) expect(Object.keys(accepted.properties)).toContain(k);
      for (const [k, p] of Object.entries(accepted.properties as Record<string, Schema>)) {
        if (p.const !== undefined) expect(res.json[k], k).toBe(p.const);
      }
    });

    it(`every documented ${name} field rule is the server's rule, with the documented field name`, async () => {
      const op = operation(path, "post");
      const content = op.requestBody.content["application/json"];
      const example = content.examples?.direct.value ?? content.example;
      const schema = schemaOf(content.schema.$ref);
      const props = schema.properties as Record<string, Schema>;
      let checked = 0;
      for (const key of schema.required as string[]) {
        const { [key]: _, ...without } = fresh(example);
        const res = await send(server, firm, { path, body: without });
        expect(res.json?.message, `${key} missing`).toBe(
          `Validation failed: ${props[key]?.["x-field"]} is required`,
        );
        checked++;
      }
      for (const [key, p] of Object.entries(props)) {
        const field = p["x-field"];
        if (field === undefined && p.type === "string") {
          // A field with no struct name is never refused (middle_name, a withdrawal's method).
          const odd = await send(server, firm, {
            path,
            body: { ...fresh(example), [key]: "Carrier Pigeon 7" },
          });
          expect(odd.status, `${key}: ${odd.text}`).toBe(200);
          checked++;
          continue;
        }
        if (p.type !== "string" || p.pattern) continue;
        if (p.enum) {
          const res = await send(server, firm, {
            path,
            body: { ...fresh(example), [key]: "carrier-pigeon" },
          });
          expect(res.json.message).toBe(`Validation failed: ${field} must be one of ${p.enum.join(", ")}`);
          checked++;
          continue;
        }
        const long = await send(server, firm, {
          path,
          body: { ...fresh(example), [key]: textOf(p.maxLength + 1, key) },
        });
        expect(long.json.message, key).toBe(
          `Validation failed: ${field} is too long (over ${p.maxLength} chars)`,
        );
        if (p.minLength > 1) {
          const short = await send(server, firm, {
            path,
            body: { ...fresh(example), [key]: textOf(p.minLength - 1, key) },
          });
          expect(short.json.message, key).toBe(
            `Validation failed: ${field} is too short (under ${p.minLength} chars)`,
          );
        }
        if (key !== "reference" && key !== "user_id" && key !== "return_url") {
          const atLimit = await send(server, firm, {
            path,
            body: { ...fresh(example), [key]: textOf(p.maxLength, key) },
          });
          expect(atLimit.status, `${key} at ${p.maxLength}: ${atLimit.text}`).toBe(200);
        }
        checked++;
      }
      expect(checked).toBeGreaterThan(8);
    });
  }

  it("every merchant error in docs/errors.md is among the documented answers of its operations, under its status", () => {
    const catalogue = readFileSync(new URL("../../docs/errors.md", import.meta.url), "utf8");
    // The merchant API's sections: from the top to the page-internal endpoints.
    const merchant = catalogue.slice(0, catalogue.indexOf("## Page-internal endpoints"));
    const rows = [...merchant.matchAll(/^\| (\d{3}) \| `([^`]+)`/gm)]
      .map((m) => ({ status: m[1] as string, message: m[2] as string }))
      .filter((r) => !r.message.includes("<Field>"));
    expect(rows.length).toBeGreaterThan(30);
    const documented = new Set<string>();
    for (const item of Object.values(doc.paths) as Schema[]) {
      for (const op of Object.values(item) as Schema[]) {
        for (const [status, response] of Object.entries(op.responses as Schema)) {
          const examples = (response as Schema).content?.["application/json"]?.examples ?? {};
          for (const e of Object.values(examples) as Schema[]) documented.add(`${status} ${e.value.message}`);
        }
      }
    }
    const missing = rows.map((r) => `${r.status} ${r.message}`).filter((r) => !documented.has(r));
    expect(missing).toEqual([]);
  });

  it("the balance operations answer the documented shapes, every movement type and day total named", async () => {
    const balance = await send(server, firm, { path: MERCHANT_PATHS.balance });
    expect(balance.status, balance.text).toBe(200);
    const shape = schemaOf("Balance");
    expect(Object.keys(balance.json.data).sort()).toEqual([...shape.required].sort());
    const date = turkeyDayOf(server.clock.now());
    const day = await send(server, firm, { path: `/paymentapi/v1/balance/days/${date}` });
    expect(day.status, day.text).toBe(200);
    const dayShape = schemaOf("BalanceDay");
    for (const k of dayShape.required) expect(day.json.data, k).toHaveProperty(k);
    for (const k of Object.keys(day.json.data)) expect(Object.keys(dayShape.properties), k).toContain(k);
    // Every total the ledger's day names is documented, and every movement type it can give.
    expect(Object.keys(dayShape.properties)).toEqual(expect.arrayContaining(Object.keys(DAY_MOVEMENTS)));
    expect([...schemaOf("BalanceMovement").properties.type.enum].sort()).toEqual(
      [...new Set(Object.values(MOVEMENT_TYPES))].sort(),
    );
    const limit = operation(MERCHANT_PATHS.balanceDay, "get").parameters.find(
      (p: Schema) => p.name === "limit",
    );
    expect(limit.schema).toMatchObject({
      minimum: 1,
      maximum: BALANCE_PAGE.max,
      default: BALANCE_PAGE.default,
    });
    const atMost = await send(server, firm, {
      path: `/paymentapi/v1/balance/days/${date}?limit=${BALANCE_PAGE.max}`,
      signPath: `/paymentapi/v1/balance/days/${date}`,
    });
    expect(atMost.status).toBe(200);
  });

  it("a transaction found by reference has the documented Transaction shape", async () => {
    const example = operation(MERCHANT_PATHS.deposits, "post").requestBody.content["application/json"]
      .examples.direct.value;
    const body = fresh(example);
    expect((await send(server, firm, { path: MERCHANT_PATHS.deposits, body })).status).toBe(200);
    const res = await send(server, firm, {
      path: `/paymentapi/v1/transactions/by-reference/${body.reference}`,
    });
    expect(res.status).toBe(200);
    const tx = schemaOf("Transaction");
    for (const k of tx.required) expect(res.json.data, k).toHaveProperty(k);
    for (const k of Object.keys(res.json.data)) expect(Object.keys(tx.properties), k).toContain(k);
    expect(schemaOf("TransactionFound").properties.status.enum).toContain(res.json.status);
  });

  it("/docs renders every operation, the signing recipe, callbacks and every business message", async () => {
    const res = await request(`${server.url}/docs`);
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-security-policy"]).toContain("default-src 'none'");
    const html = await res.body.text();
    expect(html).not.toMatch(/<script|https?:\/\/cdn/i);
    for (const path of Object.keys(doc.paths)) expect(html).toContain(path);
    for (const text of ["X-Signature", "hashcode", "Ödeme sayfasına yönlendiriniz", "Invalid signature"]) {
      expect(html).toContain(text);
    }
    for (const { message } of Object.values(REJECTIONS)) expect(html).toContain(message);
    // Every link works: an anchor on this page, a page this server serves, or an absolute URL.
    const ids = new Set([...html.matchAll(/ id="([^"]+)"/g)].map((m) => m[1]));
    const broken: string[] = [];
    for (const [, href] of html.matchAll(/ href="([^"]+)"/g)) {
      if (/^https?:|^mailto:/.test(href as string)) continue;
      if (href?.startsWith("#")) {
        if (!ids.has(href.slice(1))) broken.push(href);
        continue;
      }
      const linked = await request(new URL(href as string, `${server.url}/docs`));
      await linked.body.dump();
      if (linked.statusCode !== 200) broken.push(href as string);
    }
    expect(broken).toEqual([]);
    expect(html).toContain("Entegrasyon rehberi");
  });
});
