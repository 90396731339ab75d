import { connect } from "node:net";
import fc from "fast-check";
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { STORES, startTestServer, type TestServer } from "../support/harness.js";
import {
  addAccount,
  createFirm,
  depositBody,
  send,
  type TestFirm,
  withdrawalBody,
} from "../support/merchant.js";

/**
 * Hostile input, validly signed: random bodies of every shape (wrong types, huge numbers, NUL and
 * right-to-left characters, deep nesting, duplicate keys, long strings) sent to every endpoint.
 * Only ever a 200 success or a 4xx in the envelope, never a 5xx; every 4xx wrote nothing (the
 * transactions that exist are exactly the 200s); and nothing secret reached the logs.
 * FUZZ_RUNS sets the runs per endpoint (CI uses the default).
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 120);
const SEED = Number(process.env.RELIABILITY_SEED ?? 20261123);

const hostileText = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: "binary", maxLength: 40 }),
  fc.constantFrom(
    "\u0000",
    "a\u0000b",
    "\u202Eevil",
    "\u200B",
    "ＡＢＣ",
    "😀😀",
    "'; DROP TABLE transactions; --",
  ),
  fc.string({ minLength: 200, maxLength: 2_000 }),
);
const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  hostileText,
  fc.integer(),
  fc.double(),
  fc.constantFrom(1e308, -0, Number.MAX_SAFE_INTEGER + 2, true, false, null, [], {}),
  fc.array(fc.string(), { maxLength: 3 }),
  fc.jsonValue({ maxDepth: 4 }),
);
/** Nested arrays 20 to 2,000 deep, as text (JSON.stringify would refuse nothing here). */
const deep = fc.integer({ min: 20, max: 2_000 }).map((d) => `${"[".repeat(d)}${"]".repeat(d)}`);

function bodies(valid: () => Record<string, unknown>): fc.Arbitrary<string> {
  const keys = Object.keys(valid());
  return fc.oneof(
    // One field of a valid body replaced by something hostile.
    fc.tuple(fc.constantFrom(...keys), hostileValue).map(([k, v]) => JSON.stringify({ ...valid(), [k]: v })),
    // Extra hostile keys and a duplicate key whose last value is hostile (JSON.parse keeps the last).
    fc.tuple(fc.constantFrom(...keys), hostileValue).map(([k, v]) => {
      const text = JSON.stringify(valid());
      return `${text.slice(0, -1)},${JSON.stringify(k)}:${JSON.stringify(v) ?? "null"}}`;
    }),
    // Not an object at all, or not JSON.
    fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
    deep,
    fc.string({ maxLength: 200 }),
  );
}

describe.each(STORES)("hostile input on every endpoint (%s)", (kind) => {
  let server: TestServer;
  let firm: TestFirm;
  const ok: string[] = [];

  beforeAll(async () => {
    server = await startTestServer(kind, { LOG_LEVEL: "info" });
    firm = await createFirm(server);
    await addAccount(server);
  });
  afterAll(async () => {
    await server?.close();
  });

  async function check(path: string, text: string, method: "POST" | "GET" = "POST", as = firm) {
    const res = await send(server, as, { method, path, body: method === "POST" ? text : undefined });
    if (res.status === 200 && res.json?.success === true) {
      ok.push(path);
      return;
    }
    expect(res.status, `${path} ${text.slice(0, 200)} → ${res.text}`).toBeGreaterThanOrEqual(400);
    expect(res.status, `${path} ${text.slice(0, 200)} → ${res.text}`).toBeLessThan(500);
    expect(Object.keys(res.json ?? {}).sort(), res.text).toEqual(["message", "success"]);
    expect(res.json.success).toBe(false);
  }

  it("deposits: random signed bodies get 200 or a 4xx in the envelope, never a 5xx", async () => {
    await fc.assert(
      fc.asyncProperty(bodies(depositBody), (text) => check("/paymentapi/v1/deposits", text)),
      { numRuns: RUNS, seed: SEED },
    );
  });

  it("withdrawals: the same", async () => {
    await fc.assert(
      fc.asyncProperty(bodies(withdrawalBody), (text) => check("/paymentapi/v1/withdrawals", text)),
      { numRuns: RUNS, seed: SEED + 1 },
    );
  });

  it("queries and sandbox helpers with hostile ids and references (as a sandbox firm too)", async () => {
    const sandbox = await createFirm(server, { sandbox: true });
    const segment = fc.oneof(
      hostileText,
      fc.integer().map(String),
      fc.constantFrom("..", "%00", "%2e%2e", "1e3", "-1", "0x10"),
    );
    await fc.assert(
      fc.asyncProperty(
        segment,
        fc.constantFrom("transactions", "transactions/by-reference", "sandbox/transactions"),
        async (s, where) => {
          const tail = where === "sandbox/transactions" ? "/approve" : "";
          const path = `/paymentapi/v1/${where}/${encodeURIComponent(s)}${tail}`;
          await check(path, "{}", where === "sandbox/transactions" ? "POST" : "GET");
          if (where === "sandbox/transactions") await check(path, "{}", "POST", sandbox);
        },
      ),
      { numRuns: RUNS, seed: SEED + 2 },
    );
  });

  it("an overlong or undecodable URL is answered in the envelope too", async () => {
    const long = await request(`${server.url}/paymentapi/v1/transactions/${"9".repeat(1_500)}`);
    expect(long.statusCode).toBe(414);
    expect(await long.body.json()).toEqual({ success: false, message: "Request URL too long" });
    const bad = await request(`${server.url}/paymentapi/v1/transactions/by-reference/%E0%A4%A`);
    expect(bad.statusCode).toBe(400);
    expect(await bad.body.json()).toEqual({ success: false, message: "Bad request" });
  });

  it("every transaction that exists was answered 200: no 4xx wrote anything", async () => {
    const list = (await server.admin("GET", `/admin/v1/transactions?firm=${firm.id}&limit=1000`))
      .json as unknown[];
    expect(list).toHaveLength(ok.filter((p) => p.endsWith("/deposits") || p.endsWith("/withdrawals")).length);
  });

  it("random signature, timestamp and nonce headers get 401 in the envelope, never anything else", async () => {
    const header = fc.oneof(
      fc.string({ maxLength: 100 }),
      fc.string({ unit: "grapheme", maxLength: 70 }),
      fc.string({ unit: fc.constantFrom(..."0123456789abcdef"), maxLength: 130 }),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom("x-signature", "x-timestamp", "x-nonce"),
        header,
        async (name, value) => {
          const clean = value.replace(/[^\t\x20-\x7e\x80-\xff]/g, "");
          const res = await send(server, firm, {
            path: "/paymentapi/v1/deposits",
            body: depositBody(),
            headers: { [name]: clean },
          });
          if (res.status === 200) return; // the random value happened to be acceptable (a nonce, say)
          expect([400, 401], `${name}: ${JSON.stringify(clean)} → ${res.text}`).toContain(res.status);
        },
      ),
      { numRuns: RUNS, seed: SEED + 3 },
    );
  });

  it("slow clients holding connections open do not starve normal ones", async () => {
    const slow = Array.from({ length: 100 }, () => {
      const socket = connect(Number(new URL(server.url).port), "127.0.0.1");
      socket.on("error", () => {});
      socket.write("POST /paymentapi/v1/deposits HTTP/1.1\r\nHost: x\r\n");
      return socket;
    });
    try {
      const started = Date.now();
      const answers = await Promise.all(
        Array.from({ length: 20 }, () =>
          send(server, firm, { path: "/paymentapi/v1/deposits", body: depositBody() }),
        ),
      );
      expect(answers.every((a) => a.status === 200)).toBe(true);
      expect(Date.now() - started).toBeLessThan(3_000);
      for (let i = 0; i < 20; i++) ok.push("/paymentapi/v1/deposits");
    } finally {
      for (const s of slow) s.destroy();
    }
  });

  it("nothing secret reached the logs of all that", async () => {
    const res = await request(`${server.url}/healthz`);
    await res.body.dump();
    const logs = server.logs.join("\n");
    expect(logs.length).toBeGreaterThan(0);
    for (const secret of [firm.secret, "12345678901", "TR330006100519786457841326"]) {
      expect(logs).not.toContain(secret);
    }
    expect(logs).not.toMatch(/"x-signature"|[0-9a-f]{64}/);
  });
});
