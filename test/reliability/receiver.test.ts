import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { STORES, startTestServer, type TestServer } from "../support/harness.js";
import { addAccount, createFirm, depositBody, send, type TestFirm } from "../support/merchant.js";
import { eventually, type Receiver, startReceiver } from "../support/receiver.js";

/**
 * A merchant's receiver at its worst: slow but in time, too slow, answering a huge body. (Down for
 * a simulated day, and hanging, are in test/api/callbacks.test.ts.) Nothing is lost, and a bad
 * receiver costs the service no more than its timeout and a 500-character excerpt (that the rest
 * of a huge body is never read is unit-tested in test/unit/callback-sender.test.ts).
 */
describe.each(STORES)("callback receivers that misbehave (%s)", (kind) => {
  let server: TestServer;
  let firm: TestFirm;
  let receiver: Receiver;

  beforeAll(async () => {
    server = await startTestServer(kind, {
      LOG_LEVEL: "warn",
      PAYINTAKE_CALLBACK_POLL_MS: "50",
      PAYINTAKE_CALLBACK_TIMEOUT_MS: "1000",
    });
    receiver = await startReceiver();
    firm = await createFirm(server, { webhook_url: receiver.url });
    await addAccount(server);
  });
  afterAll(async () => {
    await receiver?.close();
    await server?.close();
  });

  async function decided(): Promise<number> {
    const body = depositBody();
    await send(server, firm, { path: "/paymentapi/v1/deposits", body });
    const q = await send(server, firm, {
      path: `/paymentapi/v1/transactions/by-reference/${body.reference}`,
    });
    await server.admin("POST", `/admin/v1/transactions/${q.json.data.id}/approve`, { actor: "t" });
    return q.json.data.id as number;
  }
  async function deliveryOf(txId: number) {
    const list = (await server.admin("GET", "/admin/v1/callbacks?limit=1000")).json as any[];
    const cb = list.find((c) => c.transaction_id === txId);
    return (await server.admin("GET", `/admin/v1/callbacks/${cb.id}`)).json;
  }

  it("slow but within the timeout: delivered at the first attempt", async () => {
    receiver.behave(() => ({ status: 200, body: "ok", delayMs: 300 }));
    const id = await decided();
    const d = await eventually(async () => {
      const x = await deliveryOf(id);
      return x.status === "delivered" ? x : undefined;
    });
    expect(d.attempts).toHaveLength(1);
    expect(d.attempts[0].duration_ms).toBeGreaterThanOrEqual(250);
  });

  it("slower than the timeout: the attempt times out and is retried, nothing lost", async () => {
    receiver.behave(() => ({ status: 200, body: "ok", delayMs: 1_500 }));
    const id = await decided();
    const d = await eventually(async () => {
      const x = await deliveryOf(id);
      return x.attempts.length >= 1 ? x : undefined;
    }, 5_000);
    expect(d.status).toBe("pending");
    expect(d.attempts[0].outcome).toBe("retry");
    expect(d.attempts[0].duration_ms).toBeLessThan(1_400);
    expect(d.next_attempt_at).not.toBeNull();
  });

  it("a 20 MB answer: delivered, only a 500-character excerpt kept, the service unaffected", async () => {
    const huge = "x".repeat(20 * 1024 * 1024);
    receiver.behave(() => ({ status: 200, body: huge }));
    const id = await decided();
    const d = await eventually(async () => {
      const x = await deliveryOf(id);
      return x.status === "delivered" ? x : undefined;
    });
    // The body is dropped after its first bytes (callbacks/sender.ts readExcerpt), not buffered.
    expect(d.attempts[0].response_excerpt.length).toBeLessThanOrEqual(500);
    expect(d.attempts[0].response_excerpt).toMatch(/^x+$/);
    receiver.behave(() => ({ status: 200, body: "ok" }));
  });
});
