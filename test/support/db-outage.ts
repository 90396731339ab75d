import { request } from "undici";
import { expect } from "vitest";
import { parseConfig } from "../../src/config/config.js";
import { type RunningServer, startServer } from "../../src/main/server.js";
import { storeEnv, TestClock, type TestServer } from "./harness.js";
import { addAccount, createFirm, depositBody, send, type TestFirm } from "./merchant.js";

/**
 * PostgreSQL goes away mid-load and comes back (played by `outage`, which resolves once it is
 * back). Requests meanwhile fail cleanly: a 5xx in the envelope, never a hang or a reset; /readyz
 * says so while it lasts; the service recovers by itself; and retrying by reference leaves exactly
 * one complete transaction per reference. Shared by db-restart.test.ts (connections cut through a
 * proxy) and pg-restart.test.ts (the real server restarted).
 */
export interface OutageRun {
  server: TestServer;
  firm: TestFirm;
  close(): Promise<void>;
}

export async function startOnPostgres(rewrite: (url: URL) => URL = (u) => u): Promise<OutageRun> {
  const store = await storeEnv("postgres");
  const env: Record<string, string> = {
    ...store.env,
    DATABASE_URL: rewrite(new URL(store.env.DATABASE_URL as string)).toString(),
    PORT: "0",
    HOST: "127.0.0.1",
    LOG_LEVEL: "silent",
    PAYINTAKE_ALLOW_PRIVATE_CALLBACKS: "true",
  };
  const running: RunningServer = await startServer(parseConfig(env));
  const adminToken = env.PAYINTAKE_ADMIN_TOKEN as string;
  const server = {
    kind: "postgres",
    url: running.url,
    adminToken,
    clock: new TestClock(),
    env,
    logs: [],
    async admin(method: string, path: string, body?: unknown) {
      const res = await request(`${running.url}${path}`, {
        method: method as "GET",
        headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: res.statusCode, json: await res.body.json() };
    },
    close: () => running.close(),
  } as unknown as TestServer;
  const firm = await createFirm(server);
  await addAccount(server);
  return {
    server,
    firm,
    async close() {
      await running.close();
      await store.cleanup();
    },
  };
}

export async function outageUnderLoad(
  run: OutageRun,
  outage: (probeReady: () => Promise<number>) => Promise<void>,
): Promise<{ answered: number; failed: number }> {
  const { server, firm } = run;
  const outcomes: { reference: string; body: Record<string, unknown>; status: number; json: any }[] = [];
  let stop = false;
  // Three paced clients: a steady stream, small enough to list afterwards (one page of 1,000). After
  // a failure a client waits longer, as a merchant backs off: failures answer at once, so at the
  // steady pace a restart that took a few seconds on a busy machine made more deposits than one page
  // holds (CI saw 1,304).
  const clients = Array.from({ length: 3 }, async () => {
    let lastFailed = false;
    while (!stop) {
      await new Promise((r) => setTimeout(r, lastFailed ? 100 : 15));
      const body = depositBody();
      const res = await send(server, firm, { path: "/paymentapi/v1/deposits", body });
      outcomes.push({ reference: body.reference as string, body, status: res.status, json: res.json });
      lastFailed = res.status !== 200;
    }
  });
  await new Promise((r) => setTimeout(r, 500));
  await outage(async () => {
    const ready = await request(`${server.url}/readyz`);
    await ready.body.dump();
    return ready.statusCode;
  });
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
      expect((await send(server, firm, { path: "/paymentapi/v1/deposits", body: o.body })).status).toBe(200);
    } else expect(q.status).toBe(200);
  }
  const references = new Set(outcomes.map((o) => o.reference)).size;
  expect(references, "more deposits than one page of the listing holds").toBeLessThanOrEqual(1000);
  const all = (await server.admin("GET", `/admin/v1/transactions?firm=${firm.id}&limit=1000`)).json as any[];
  expect(all.length).toBe(references);
  for (const t of all) {
    expect(t.assigned_iban, t.reference).toBe("TR330006100519786457841326");
    expect(t.status).toBe("pending");
  }
  return { answered: outcomes.length - failed.length, failed: failed.length };
}
