import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseConfig } from "../../src/config/config.js";
import { type RunningServer, startServer } from "../../src/main/server.js";
import { PG_BASE_URL, STORES, storeEnv, TestClock, type TestServer } from "../support/harness.js";
import { addAccount, createFirm, depositBody, send, type TestFirm } from "../support/merchant.js";
import { startTcpProxy, type TcpProxy } from "../support/tcp-proxy.js";

/**
 * PostgreSQL goes away mid-load (every connection cut, new ones refused for a second) and comes
 * back. Requests meanwhile fail cleanly: a 5xx in the envelope, never a hang or a reset; /readyz
 * says so; the service recovers by itself; and retrying by reference leaves exactly one complete
 * transaction per reference.
 */
describe.runIf(STORES.includes("postgres"))("PostgreSQL restarted mid-load", () => {
  let proxy: TcpProxy;
  let running: RunningServer;
  let server: TestServer;
  let firm: TestFirm;
  let cleanup: () => Promise<void>;

  beforeAll(async () => {
    const base = new URL(PG_BASE_URL);
    proxy = await startTcpProxy({ host: base.hostname, port: Number(base.port || 5432) });
    const store = await storeEnv("postgres");
    cleanup = store.cleanup;
    const url = new URL(store.env.DATABASE_URL as string);
    url.port = String(proxy.port);
    const env: Record<string, string> = {
      ...store.env,
      DATABASE_URL: url.toString(),
      PORT: "0",
      HOST: "127.0.0.1",
      LOG_LEVEL: "silent",
      PAYINTAKE_ALLOW_PRIVATE_CALLBACKS: "true",
    };
    running = await startServer(parseConfig(env));
    const adminToken = env.PAYINTAKE_ADMIN_TOKEN as string;
    server = {
      kind: "postgres",
      url: running.url,
      adminToken,
      clock: new TestClock(),
      env,
      logs: [],
      async admin(method, path, body) {
        const res = await request(`${running.url}${path}`, {
          method: method as "GET",
          headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        return { status: res.statusCode, json: await res.body.json() };
      },
      close: () => running.close(),
    } as TestServer;
    firm = await createFirm(server);
    await addAccount(server);
  });
  afterAll(async () => {
    await running?.close();
    await proxy?.close();
    await cleanup?.();
  });

  it("fails cleanly while it is down, recovers by itself, and retries by reference end with one transaction each", async () => {
    const outcomes: { reference: string; body: Record<string, unknown>; status: number; json: any }[] = [];
    let stop = false;
    // Three paced clients: a steady stream, small enough to list afterwards.
    const clients = Array.from({ length: 3 }, async () => {
      while (!stop) {
        await new Promise((r) => setTimeout(r, 15));
        const body = depositBody();
        const res = await send(server, firm, { path: "/paymentapi/v1/deposits", body });
        outcomes.push({ reference: body.reference as string, body, status: res.status, json: res.json });
      }
    });
    await new Promise((r) => setTimeout(r, 500));
    proxy.down();
    await new Promise((r) => setTimeout(r, 300));
    const ready = await request(`${server.url}/readyz`);
    expect(ready.statusCode).toBe(503);
    await ready.body.dump();
    await new Promise((r) => setTimeout(r, 700));
    proxy.up();
    await new Promise((r) => setTimeout(r, 1_500));
    stop = true;
    await Promise.all(clients);

    const failed = outcomes.filter((o) => o.status !== 200);
    expect(failed.length).toBeGreaterThan(0);
    for (const o of failed) {
      expect(o.status, JSON.stringify(o.json)).toBeGreaterThanOrEqual(500);
      expect(o.json).toEqual({
        success: false,
        message: "An internal error occurred. Please try again later.",
      });
    }
    // Recovered without a restart: the last answers are successes, and /readyz is 200 again.
    expect(outcomes.slice(-3).every((o) => o.status === 200)).toBe(true);
    expect((await request(`${server.url}/readyz`)).statusCode).toBe(200);

    // Retry what failed: ask by reference, resend on 404; every reference ends with one transaction.
    for (const o of failed) {
      const q = await send(server, firm, { path: `/paymentapi/v1/transactions/by-reference/${o.reference}` });
      if (q.status === 404) {
        expect((await send(server, firm, { path: "/paymentapi/v1/deposits", body: o.body })).status).toBe(
          200,
        );
      } else expect(q.status).toBe(200);
    }
    const all = (await server.admin("GET", `/admin/v1/transactions?firm=${firm.id}&limit=1000`))
      .json as any[];
    expect(all.length).toBe(new Set(outcomes.map((o) => o.reference)).size);
    for (const t of all) {
      expect(t.assigned_iban, t.reference).toBe("TR330006100519786457841326");
      expect(t.status).toBe("pending");
    }
  });
});
