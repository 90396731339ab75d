import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { consoleCall, consoleLogin } from "../support/console.js";
import { STORES, startTestServer, type TestServer } from "../support/harness.js";
import { addAccount, createFirm, depositBody, send, type TestFirm } from "../support/merchant.js";

/** A whole page of the queue (500) in one firm, before five more in another. */
const MANY = 500;

describe.each(STORES)("console queue past its first 500 rows (%s)", (kind) => {
  let server: TestServer;
  let big: TestFirm;
  let small: TestFirm;
  let cookie: string;

  async function deposits(firm: TestFirm, bodies: Record<string, unknown>[]) {
    for (let i = 0; i < bodies.length; i += 25) {
      const answers = await Promise.all(
        bodies.slice(i, i + 25).map((body) => send(server, firm, { path: "/paymentapi/v1/deposits", body })),
      );
      for (const a of answers) expect(a.status, a.text).toBe(200);
    }
  }

  beforeAll(async () => {
    server = await startTestServer(kind, { LOG_LEVEL: "warn" });
    await addAccount(server, { max: "100000.00" });
    big = await createFirm(server, { name: "Büyük Firma" });
    small = await createFirm(server, { name: "Küçük Firma" });
    await deposits(
      big,
      Array.from({ length: MANY }, () => depositBody()),
    );
    // The small firm's five come last: past the first 500 in the oldest-first order.
    await deposits(small, [
      depositBody({ amount: "777.77", first_name: "Şükrü", last_name: "Öztürk" }),
      depositBody({ amount: "777.77" }),
      depositBody({ amount: "12.00", first_name: "Şükrü", last_name: "Öztürk" }),
      depositBody(),
      depositBody(),
    ]);
    const res = await server.admin("POST", "/admin/v1/operators", {
      email: "viewer@ops.example",
      role: "viewer",
      password: "viewer-password-123",
    });
    expect(res.status).toBe(201);
    cookie = (await consoleLogin(server, "viewer@ops.example", "viewer-password-123")).cookie;
  }, 120_000);
  afterAll(async () => {
    await server?.close();
  });

  const queue = (q: string) => consoleCall(server, "GET", `/ops/api/queue?${q}`, { cookie });
  const idsOf = (rows: { id: number }[]) => rows.map((r) => r.id);

  it("shows 500 and says how many there are in all", async () => {
    const oldest = await queue("type=deposit&order=oldest");
    expect(oldest.status).toBe(200);
    expect(oldest.json).toHaveLength(500);
    expect(oldest.headers["x-total-count"]).toBe(String(MANY + 5));
    const newest = await queue("type=deposit&order=newest");
    expect(newest.json).toHaveLength(500);
    expect(newest.headers["x-total-count"]).toBe(String(MANY + 5));
    // A queue shorter than a page is counted by its rows.
    const withdrawals = await queue("type=withdrawal");
    expect([withdrawals.json, withdrawals.headers["x-total-count"]]).toEqual([[], "0"]);
  });

  it("reaches rows past the first 500 by firm, amount and payer name", async () => {
    const oldest = idsOf((await queue("order=oldest")).json);
    const byFirm = await queue(`firm=${small.id}`);
    expect(byFirm.json).toHaveLength(5);
    expect(byFirm.headers["x-total-count"]).toBe("5");
    expect(byFirm.json.every((r: { firm_id: number }) => r.firm_id === small.id)).toBe(true);
    // Oldest first, the small firm's deposits were not among the 500 shown.
    expect(idsOf(byFirm.json).filter((id) => oldest.includes(id))).toEqual([]);

    const byAmount = await queue("amount=777.77");
    expect(byAmount.json.map((r: { amount: string }) => r.amount)).toEqual(["777.77", "777.77"]);
    const byName = await queue(`name=${encodeURIComponent("SUKRU OZTURK")}`);
    expect(byName.json.map((r: { amount: string }) => r.amount)).toEqual(["777.77", "12.00"]);
    const all = await queue(`firm=${small.id}&amount=777.77&name=sukru`);
    expect(all.json).toHaveLength(1);
    expect(all.headers["x-total-count"]).toBe("1");
  });

  it("refuses filters it cannot read", async () => {
    for (const q of [
      "firm=abc",
      "amount=1.5.0",
      "amount=-3",
      "type=refund",
      `name=${"a ".repeat(6)}`,
      "method=wire",
    ]) {
      const res = await queue(q);
      expect([q, res.status, res.json.message]).toEqual([
        q,
        400,
        "type must be deposit or withdrawal, order oldest or newest; firm an id, amount an amount, name up to 5 words, method fast, eft or havale",
      ]);
    }
  });

  it("the summary counts every pending deposit, whatever day it came, and the oldest's time", async () => {
    const d = await consoleCall(server, "GET", "/ops/api/dashboard", { cookie });
    expect(d.status).toBe(200);
    expect(d.json.deposits.pending_all).toBe(MANY + 5);
    expect(d.json.withdrawals.pending_all).toBe(0);
    expect(d.json.withdrawals.oldest_pending_at).toBeNull();
    // The earliest creation time, which need not be the smallest id's: deposits made at once take
    // their times and their ids in different orders (the queue's oldest first goes by id).
    const times = (await queue("order=oldest")).json.map((r: { created_at: string }) => r.created_at);
    expect(d.json.deposits.oldest_pending_at).toBe([...times].sort()[0]);

    // A day later, today's figures have none of them; the queue's count still has them all.
    server.clock.advance(24 * 3_600_000);
    cookie = (await consoleLogin(server, "viewer@ops.example", "viewer-password-123")).cookie;
    const later = await consoleCall(server, "GET", "/ops/api/dashboard", { cookie });
    expect([later.json.deposits.pending, later.json.deposits.pending_all]).toEqual([0, MANY + 5]);
  });
});
