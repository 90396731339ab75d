import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { STORES, startTestServer, type TestServer } from "../support/harness.js";
import { addAccount, createFirm, depositBody, send } from "../support/merchant.js";
import { type Receiver, startReceiver } from "../support/receiver.js";

/**
 * Two instances on one PostgreSQL, one of them with its clock 90 s ahead (more than a callback
 * lease, more than an auto-cancel margin): both read the database's time, so the fast one neither
 * cancels fresh deposits nor stamps its rows in the future.
 */
const AHEAD_MS = 90_000;

describe.runIf(STORES.includes("postgres"))("instances whose clocks differ, on one PostgreSQL", () => {
  let a: TestServer;
  let b: TestServer;

  beforeAll(async () => {
    const env = {
      PAYINTAKE_AUTO_CANCEL_INTERVAL_MS: "25",
      PAYINTAKE_CALLBACK_POLL_MS: "25",
      PAYINTAKE_CALLBACK_TIMEOUT_MS: "2000",
      PAYINTAKE_CALLBACK_LEASE_MS: "4000",
      LOG_LEVEL: "warn",
    };
    a = await startTestServer("postgres", env, { clockFromDatabase: true });
    b = await startTestServer("postgres", env, {
      shareStoreOf: a,
      clockOffsetMs: AHEAD_MS,
      clockFromDatabase: true,
    });
    await addAccount(a);
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it("the fast instance says so at start and stamps rows with the database's time", async () => {
    expect(b.logs.some((l) => l.includes("differs from the database's"))).toBe(true);
    expect(a.logs.some((l) => l.includes("differs from the database's"))).toBe(false);
    const firm = await createFirm(b);
    const body = depositBody();
    expect((await send(b, firm, { path: "/paymentapi/v1/deposits", body })).status).toBe(200);
    const q = await send(a, firm, { path: `/paymentapi/v1/transactions/by-reference/${body.reference}` });
    // Without the correction it would be 90 s in the future.
    expect(Math.abs(Date.parse(q.json.data.created_at) - Date.now())).toBeLessThan(5_000);
  });

  it("a deposit made on one instance is not auto-cancelled early by the instance whose clock is ahead", async () => {
    // One minute to pay: the fast instance's own clock would call a fresh deposit 90 s old.
    const provider = await a.admin("POST", "/admin/v1/providers", { name: "Skew", auto_cancel_minutes: 1 });
    expect(provider.status).toBe(201);
    const firm = await createFirm(a, { provider_id: provider.json.id });
    const body = depositBody();
    expect((await send(a, firm, { path: "/paymentapi/v1/deposits", body })).status).toBe(200);
    const q = await send(a, firm, { path: `/paymentapi/v1/transactions/by-reference/${body.reference}` });
    // Both instances look every 25 ms: still pending after twenty looks each.
    await new Promise((r) => setTimeout(r, 500));
    const tx = (await a.admin("GET", `/admin/v1/transactions/${q.json.data.id}`)).json;
    expect(tx.status).toBe("pending");
  });

  it("the fast instance does not take a callback the other is sending: its lease holds for both", async () => {
    const receiver: Receiver = await startReceiver();
    try {
      // The receiver answers after a second: while a sends, b polls every 25 ms. By its own clock,
      // 90 s ahead, a's 4 s lease ran out long ago.
      receiver.behave(() => ({ status: 200, delayMs: 1_000 }));
      const firm = await createFirm(a, { webhook_url: receiver.url });
      const body = depositBody();
      expect((await send(a, firm, { path: "/paymentapi/v1/deposits", body })).status).toBe(200);
      const q = await send(a, firm, { path: `/paymentapi/v1/transactions/by-reference/${body.reference}` });
      const decided = await a.admin("POST", `/admin/v1/transactions/${q.json.data.id}/approve`, {
        actor: "t",
      });
      expect(decided.status).toBe(200);
      await receiver.waitFor(1);
      // Until a's send ended and is on record (a second after it began): b took nothing meanwhile.
      const callback = async () =>
        (await a.admin("GET", `/admin/v1/callbacks/${decided.json.callback_id}`)).json;
      await expect.poll(async () => (await callback()).status).toBe("delivered");
      expect(receiver.received).toHaveLength(1);
      expect((await callback()).attempts).toHaveLength(1);
    } finally {
      await receiver.close();
    }
  });
});
