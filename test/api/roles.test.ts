import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseConfig } from "../../src/config/config.js";
import { type RunningServer, startServer } from "../../src/main/server.js";
import { STORES, startTestServer, type TestServer } from "../support/harness.js";
import { addAccount, createFirm, depositBody, pendingDeposit, send } from "../support/merchant.js";
import { type Receiver, startReceiver } from "../support/receiver.js";

const get = async (url: string, headers: Record<string, string> = {}) => {
  const res = await request(url, { headers });
  return {
    status: res.statusCode,
    json: (await res.body.json()) as Record<string, unknown>,
    headers: res.headers,
  };
};

describe.each(STORES)("health, readiness and request ids (%s)", (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind, { LOG_LEVEL: "warn" });
  });
  afterAll(async () => {
    await server?.close();
  });

  it("/healthz and /readyz answer; every answer carries a request id, the caller's when it is a plain token", async () => {
    expect(await get(`${server.url}/healthz`)).toMatchObject({
      status: 200,
      json: { status: "ok", role: "all" },
    });
    expect(await get(`${server.url}/readyz`)).toMatchObject({ status: 200, json: { status: "ready" } });
    const mine = await get(`${server.url}/healthz`, { "x-request-id": "shop-42.a:b" });
    expect(mine.headers["x-request-id"]).toBe("shop-42.a:b");
    const odd = await get(`${server.url}/nope`, { "x-request-id": "<script>" });
    expect(odd.status).toBe(404);
    expect(odd.headers["x-request-id"]).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe.each(STORES)("Prometheus metrics (%s)", (kind) => {
  let server: TestServer;
  let receiver: Receiver;
  beforeAll(async () => {
    server = await startTestServer(kind, { LOG_LEVEL: "warn", PAYINTAKE_CALLBACK_POLL_MS: "50" });
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver?.close();
    await server?.close();
  });

  it("counts answers by route, deposits by outcome, routing attempts, callbacks; never an id or a secret", async () => {
    const firm = await createFirm(server, { webhook_url: receiver.url });
    await addAccount(server);
    const body = depositBody();
    await send(server, firm, { path: "/paymentapi/v1/deposits", body });
    await send(server, firm, { path: "/paymentapi/v1/deposits", body });
    const q = await send(server, firm, {
      path: `/paymentapi/v1/transactions/by-reference/${body.reference}`,
    });
    await server.admin("POST", `/admin/v1/transactions/${q.json.data.id}/approve`, { actor: "t" });
    await receiver.waitFor(1, 5_000);
    const valueIn = (text: string, line: string) =>
      Number(new RegExp(`^${line.replace(/[{}()[\].*+?^$|\\/]/g, "\\$&")} (\\S+)$`, "m").exec(text)?.[1]);
    // The receiver has the callback a moment before the sender has recorded its answer (and counted
    // the attempt): scrape until it has.
    let text = "";
    await expect
      .poll(async () => {
        const res = await request(`${server.url}/metrics`);
        expect(res.headers["content-type"]).toContain("text/plain");
        text = await res.body.text();
        return valueIn(text, 'payintake_callback_attempts_total{outcome="delivered"}');
      })
      .toBe(1);
    const value = (line: string) => valueIn(text, line);
    expect(
      value('payintake_http_requests_total{route="/paymentapi/v1/deposits",method="POST",status="200"}'),
    ).toBe(1);
    expect(
      value('payintake_http_requests_total{route="/paymentapi/v1/deposits",method="POST",status="409"}'),
    ).toBe(1);
    expect(value('payintake_deposits_total{outcome="created"}')).toBe(1);
    expect(value('payintake_deposits_total{outcome="duplicate_reference"}')).toBe(1);
    expect(value('payintake_routing_attempts_total{channel="manual",outcome="accepted"}')).toBe(1);
    expect(value('payintake_callback_attempts_total{outcome="delivered"}')).toBe(1);
    expect(value('payintake_callback_queue{status="pending"}')).toBe(0);
    expect(value('payintake_callback_queue{status="failed"}')).toBe(0);
    expect(text).toContain("payintake_http_request_duration_seconds_bucket");
    expect(text).toContain('route="/paymentapi/v1/transactions/by-reference/:reference"');
    for (const secret of [body.reference as string, firm.secret, firm.apiKey])
      expect(text).not.toContain(secret);
  });
});

describe("metrics are for a scraper on the host, or one with the metrics token", () => {
  let server: TestServer;
  const token = "m".repeat(32);
  beforeAll(async () => {
    // Behind a proxy on loopback: X-Forwarded-For says who the client really is.
    server = await startTestServer(STORES[0] ?? "sqlite", {
      LOG_LEVEL: "warn",
      PAYINTAKE_TRUST_PROXY: "127.0.0.1",
      PAYINTAKE_METRICS_TOKEN: token,
    });
  });
  afterAll(async () => {
    await server?.close();
  });

  it("a remote client gets the 404 of an unknown path without the token, the metrics with it", async () => {
    const remote = { "x-forwarded-for": "203.0.113.5" };
    const refused = await get(`${server.url}/metrics`, remote).catch(() => undefined);
    expect(refused).toMatchObject({ status: 404, json: { success: false, message: "Not found" } });
    const res = await request(`${server.url}/metrics`, {
      headers: { ...remote, authorization: `Bearer ${token}` },
    });
    expect(res.statusCode).toBe(200);
    expect(await res.body.text()).toContain("payintake_http_requests_total");
    const local = await request(`${server.url}/metrics`);
    expect(local.statusCode).toBe(200);
    await local.body.dump();
    // Forwarded by a proxy on this host (even an untrusted one): not a local scraper.
    const proxied = await request(`${server.url}/metrics`, { headers: { "x-forwarded-for": "127.0.0.1" } });
    expect(proxied.statusCode).toBe(404);
    await proxied.body.dump();
    // From loopback, but for another name: a page that rebound its own name to 127.0.0.1 in a
    // browser on this host. With the token it is a scraper like any other.
    const { port } = new URL(server.url);
    for (const host of [`rebind.attacker.example:${port}`, "127.0.0.1.attacker.example", "localhost.evil"]) {
      const rebound = await request(`${server.url}/metrics`, { headers: { host } });
      expect([host, rebound.statusCode]).toEqual([host, 404]);
      await rebound.body.dump();
    }
    const withToken = await request(`${server.url}/metrics`, {
      headers: { host: "rebind.attacker.example", authorization: `Bearer ${token}` },
    });
    expect(withToken.statusCode).toBe(200);
    await withToken.body.dump();
    for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, "LOCALHOST"]) {
      const named = await request(`${server.url}/metrics`, { headers: { host } });
      expect([host, named.statusCode]).toEqual([host, 200]);
      await named.body.dump();
    }
  });
});

describe.runIf(STORES.includes("postgres"))("api and worker roles on one PostgreSQL", () => {
  let api: TestServer;
  let worker: RunningServer | undefined;
  let receiver: Receiver;

  beforeAll(async () => {
    api = await startTestServer("postgres", { LOG_LEVEL: "warn", PAYINTAKE_ROLE: "api" });
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await worker?.close();
    await receiver?.close();
    await api?.close();
  });

  it("an api instance leaves callbacks to the workers; a worker started later delivers them", async () => {
    const firm = await createFirm(api, { webhook_url: receiver.url });
    await addAccount(api);
    const body = depositBody();
    expect((await send(api, firm, { path: "/paymentapi/v1/deposits", body })).status).toBe(200);
    const q = await send(api, firm, { path: `/paymentapi/v1/transactions/by-reference/${body.reference}` });
    expect(
      (await api.admin("POST", `/admin/v1/transactions/${q.json.data.id}/approve`, { actor: "t" })).status,
    ).toBe(200);
    // Nothing sent by the api instance: no callback arrives over what would be several polls.
    await new Promise((r) => setTimeout(r, 700));
    expect(receiver.received).toHaveLength(0);

    worker = await startServer(
      parseConfig({ ...api.env, PORT: "0", PAYINTAKE_ROLE: "worker", PAYINTAKE_CALLBACK_POLL_MS: "50" }),
    );
    const [got] = await receiver.waitFor(1, 5_000);
    expect(JSON.parse(got?.body ?? "{}")).toMatchObject({ id: q.json.data.id, event: "deposit.approved" });
    expect(await get(`${worker.url}/healthz`)).toMatchObject({ status: 200, json: { role: "worker" } });
    expect((await get(`${worker.url}/readyz`)).status).toBe(200);
    // A worker answers probes only.
    expect(
      (
        await send({ ...api, url: worker.url }, firm, {
          path: "/paymentapi/v1/deposits",
          body: depositBody(),
        })
      ).status,
    ).toBe(404);
    expect((await get(`${api.url}/healthz`)).json.role).toBe("api");
  });
});

describe.runIf(STORES.includes("postgres"))("a worker hears of callbacks another instance queued", () => {
  let api: TestServer;
  let worker: RunningServer | undefined;
  let receiver: Receiver;

  beforeAll(async () => {
    api = await startTestServer("postgres", { LOG_LEVEL: "warn", PAYINTAKE_ROLE: "api" });
    receiver = await startReceiver();
    // It polls once a minute: only the database's notice can bring it a decision sooner.
    worker = await startServer(
      parseConfig({ ...api.env, PORT: "0", PAYINTAKE_ROLE: "worker", PAYINTAKE_CALLBACK_POLL_MS: "60000" }),
    );
  });
  afterAll(async () => {
    await worker?.close();
    await receiver?.close();
    await api?.close();
  });

  it("an approval on an api instance reaches the merchant within seconds, not at the worker's next poll", async () => {
    const firm = await createFirm(api, { webhook_url: receiver.url });
    await addAccount(api);
    for (let i = 0; i < 3; i++) {
      const id = await pendingDeposit(api, firm);
      expect((await api.admin("POST", `/admin/v1/transactions/${id}/approve`, { actor: "t" })).status).toBe(
        200,
      );
      const [got] = (await receiver.waitFor(i + 1, 10_000)).slice(i);
      expect(JSON.parse(got?.body ?? "{}")).toMatchObject({ id, event: "deposit.approved" });
    }
  });
});

describe.runIf(STORES.includes("postgres"))("one rate limit across two api instances", () => {
  let a: TestServer;
  let b: RunningServer | undefined;
  beforeAll(async () => {
    a = await startTestServer("postgres", { LOG_LEVEL: "warn", PAYINTAKE_ROLE: "api" });
    b = await startServer(parseConfig({ ...a.env, PORT: "0", PAYINTAKE_ROLE: "api" }));
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it("a firm's 5/s (10 per 2-second window) holds for both instances together, not 10 each", async () => {
    const firm = await createFirm(a, { rate_limit_per_second: 5 });
    const other = { ...a, url: b?.url as string };
    // Start just after a window begins, so the burst stays in one window (b reads the real clock).
    const wait = 2_000 - (Date.now() % 2_000) + 20;
    await new Promise((r) => setTimeout(r, wait));
    const window = (t: number) => Math.floor(t / 2_000);
    const first = window(Date.now());
    let letThrough = 0;
    let inFirstWindow = 0;
    let retryAfter: string | undefined;
    for (let i = 0; i < 40; i++) {
      const sentAt = Date.now();
      const res = await send(i % 2 === 0 ? a : other, firm, {
        path: "/paymentapi/v1/transactions/by-reference/none",
      });
      if (res.status === 429) retryAfter ??= String(res.headers["retry-after"]);
      else {
        letThrough++;
        // Only what was sent and answered inside the first window is judged against its budget.
        if (window(sentAt) === first && window(Date.now()) === first) inFirstWindow++;
      }
    }
    // Alone, each instance would let 10 through in a window (20 in all); shared, 10 plus at most
    // what the other let through since its last sync.
    expect(letThrough).toBeGreaterThanOrEqual(10);
    expect(inFirstWindow).toBeLessThanOrEqual(14);
    expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
    expect(Number(retryAfter)).toBeLessThanOrEqual(2);
  });
});
