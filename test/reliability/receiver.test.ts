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
  /** How many times the receiver was sent the callback of this transaction. */
  const sentFor = (txId: number) => receiver.received.filter((r) => JSON.parse(r.body).id === txId).length;
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

  it("closes the connection without answering: a failed attempt on record, retried, then delivered", async () => {
    const before = receiver.received.length;
    receiver.behave((_r, n) => (n === before ? { cut: "before-answer" } : { status: 200, body: "ok" }));
    const id = await decided();
    const first = await eventually(async () => {
      const x = await deliveryOf(id);
      return x.attempts.length >= 1 ? x : undefined;
    });
    expect(first.status).toBe("pending");
    expect(first.attempts[0]).toMatchObject({ outcome: "retry", http_status: null });
    expect(first.attempts[0].error).toMatch(/closed|reset|socket/i);
    server.clock.advance(11_001);
    const done = await eventually(async () => {
      const x = await deliveryOf(id);
      return x.status === "delivered" ? x : undefined;
    });
    expect(done.attempts.map((a: { outcome: string }) => a.outcome)).toEqual(["retry", "delivered"]);
    expect(sentFor(id)).toBe(2);
    receiver.behave(() => ({ status: 200, body: "ok" }));
  });

  it("answers 200 and closes in the middle of its body: delivered once, not sent again", async () => {
    receiver.behave(() => ({ cut: "mid-body" }));
    const id = await decided();
    const d = await eventually(async () => {
      const x = await deliveryOf(id);
      return x.status === "delivered" ? x : undefined;
    });
    expect(d.attempts.map((a: { http_status: number }) => a.http_status)).toEqual([200]);
    expect(d.attempts[0]).toMatchObject({ response_excerpt: "stored, thank" });
    server.clock.advance(11_001);
    // Past when a retry would be due: none comes over several polls.
    await new Promise((r) => setTimeout(r, 300));
    expect(sentFor(id)).toBe(1);
    receiver.behave(() => ({ status: 200, body: "ok" }));
  });

  it("answers 200 at once, then its body a byte at a time: delivered, the attempt's whole length on record", async () => {
    receiver.behave(() => ({ trickle: true }));
    const id = await decided();
    const d = await eventually(async () => {
      const x = await deliveryOf(id);
      return x.status === "delivered" ? x : undefined;
    });
    expect(d.attempts).toHaveLength(1);
    expect(d.attempts[0].response_excerpt).toMatch(/^\.+$/);
    // The body is read for the rest of the timeout (1 s here) at most. That is how long the attempt
    // held its slot, and what marks the receiver slow (it was the time to the status line, ~0 ms).
    expect(d.attempts[0].duration_ms).toBeGreaterThanOrEqual(900);
    expect(d.attempts[0].duration_ms).toBeLessThan(1_400);
    receiver.behave(() => ({ status: 200, body: "ok" }));
  });

  it("a 20 MB answer: delivered, only a 500-character excerpt kept, the service unaffected", async () => {
    const huge = "x".repeat(20 * 1024 * 1024);
    receiver.behave(() => ({ status: 200, body: huge }));
    const id = await decided();
    // A wait on the state: the receiver writes 20 MB from this test's own process, which a busy
    // machine slows far past the default five seconds.
    const d = await eventually(async () => {
      const x = await deliveryOf(id);
      return x.status === "delivered" ? x : undefined;
    }, 30_000);
    // The body is dropped after its first bytes (callbacks/sender.ts readExcerpt), not buffered. The
    // delivering attempt: on a busy machine an earlier one may have run out of time.
    const delivering = d.attempts.find((a: { http_status: number | null }) => a.http_status === 200);
    expect(delivering.response_excerpt.length).toBeLessThanOrEqual(500);
    expect(delivering.response_excerpt).toMatch(/^x+$/);
    receiver.behave(() => ({ status: 200, body: "ok" }));
  });
});

/**
 * Up to `PAYINTAKE_CALLBACK_PER_ORIGIN` (at most 100) attempts to one receiver are in flight at
 * once, and each must get a connection of its own at once: an attempt waiting for a connection
 * inside the HTTP client spends its timeout there. The client allowed 16 connections per receiver
 * whatever the setting, so with 24 allowed the last 8 waited for the first answers, timed out
 * without being sent, and marked a receiver that answers in time slow.
 */
describe.each(STORES)("a receiver sent more attempts at once than 16 (%s)", (kind) => {
  let server: TestServer;
  let receiver: Receiver;

  beforeAll(async () => {
    server = await startTestServer(kind, {
      LOG_LEVEL: "warn",
      PAYINTAKE_CALLBACK_POLL_MS: "25",
      PAYINTAKE_CALLBACK_TIMEOUT_MS: "1000",
      PAYINTAKE_CALLBACK_PER_ORIGIN: "24",
    });
    receiver = await startReceiver();
    await addAccount(server);
  });
  afterAll(async () => {
    await receiver?.close();
    await server?.close();
  });

  it("24 attempts at once, each answered in 600 ms: all delivered at their first attempt", async () => {
    const firm = await createFirm(server, { webhook_url: receiver.url, rate_limit_per_second: 100_000 });
    const ids: number[] = [];
    for (let i = 0; i < 24; i++) {
      const body = depositBody();
      expect((await send(server, firm, { path: "/paymentapi/v1/deposits", body })).status).toBe(200);
      const q = await send(server, firm, {
        path: `/paymentapi/v1/transactions/by-reference/${body.reference}`,
      });
      ids.push(q.json.data.id);
    }
    receiver.behave(() => ({ status: 200, delayMs: 600 }));
    await Promise.all(
      ids.map((id) => server.admin("POST", `/admin/v1/transactions/${id}/approve`, { actor: "t" })),
    );
    const list = await eventually(async () => {
      const l = (await server.admin("GET", `/admin/v1/callbacks?firm=${firm.id}`)).json as {
        status: string;
        attempt_count: number;
        last_result: string;
      }[];
      return l.length === 24 && l.every((c) => c.attempt_count > 0) ? l : undefined;
    }, 10_000);
    expect(list.map((c) => c.last_result)).toEqual(Array(24).fill("HTTP 200"));
    expect(list.map((c) => c.attempt_count)).toEqual(Array(24).fill(1));
  });
});
