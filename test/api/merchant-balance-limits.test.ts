import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { turkeyDayOf } from "../../src/domain/turkey-time.js";
import { BALANCE_REQUESTS_PER_SECOND } from "../../src/intake/http/balance.js";
import { STORES, startTestServer, type TestServer } from "../support/harness.js";
import { addAccount, createFirm, depositBody, send, type TestFirm } from "../support/merchant.js";

/**
 * The balance routes count against a rate limit of their own, never the firm's: a merchant polling
 * its balance never costs a deposit its place, and a firm at its own limit still reads its balance.
 * The clock stands still in each test, so no bucket refills and no window turns while it counts.
 */
describe.each(STORES)("the balance routes' own rate limit (%s)", (kind) => {
  let server: TestServer;
  /** The bucket's burst: twice its rate (the embedded store's bucket; PostgreSQL's 2-second window). */
  const burst = BALANCE_REQUESTS_PER_SECOND * 2;

  beforeAll(async () => {
    server = await startTestServer(kind, { LOG_LEVEL: "warn" });
    await addAccount(server);
  });
  afterEach(() => {
    server.clock.frozenAtMs = undefined;
    // Past any bucket or window a test spent: the next test starts with full ones.
    server.clock.advance(10_000);
  });
  afterAll(async () => {
    await server?.close();
  });

  const firmOf = (rate: number) =>
    createFirm(server, { webhook_url: "http://127.0.0.1:9/cb", rate_limit_per_second: rate });
  const balance = (firm: TestFirm) => send(server, firm, { path: "/paymentapi/v1/balance" });
  const day = (firm: TestFirm) =>
    send(server, firm, { path: `/paymentapi/v1/balance/days/${turkeyDayOf(server.clock.now())}` });
  const deposit = (firm: TestFirm) =>
    send(server, firm, { path: "/paymentapi/v1/deposits", body: depositBody() });

  function tooMany(res: { status: number; json: unknown; headers: Record<string, unknown> }) {
    expect(res.status).toBe(429);
    expect(res.json).toEqual({ success: false, message: "Too many requests" });
    expect(Number(res.headers["retry-after"])).toBeGreaterThanOrEqual(1);
  }

  it("a burst of balance requests is limited on its own, and deposits are still answered", async () => {
    const firm = await firmOf(10_000);
    server.clock.frozenAtMs = Date.now();
    for (let i = 0; i < burst; i++) expect((await balance(firm)).status, `request ${i + 1}`).toBe(200);
    tooMany(await balance(firm));
    // One bucket for both balance routes.
    tooMany(await day(firm));
    const res = await deposit(firm);
    expect(res.status, res.text).toBe(200);
    expect(res.json.success).toBe(true);
  });

  it("a firm at its own limit still reads its balance and its day", async () => {
    const firm = await firmOf(1);
    server.clock.frozenAtMs = Date.now();
    let answered = 0;
    for (;;) {
      const res = await deposit(firm);
      if (res.status === 429) {
        tooMany(res);
        break;
      }
      expect(res.status, res.text).toBe(200);
      answered++;
      // A rate of 1: bursts of 2 in memory, 2 a window on PostgreSQL.
      expect(answered).toBeLessThanOrEqual(2);
    }
    expect(answered).toBe(2);
    const read = await balance(firm);
    expect(read.status, read.text).toBe(200);
    expect(read.json.data).toMatchObject({ balance: "0.00", currency: "TRY" });
    expect((await day(firm)).status).toBe(200);
    // The firm's own limit is as spent as it was: the balance routes took nothing from it.
    tooMany(await deposit(firm));
  });

  it("each firm has its own balance bucket", async () => {
    const [first, second] = [await firmOf(10_000), await firmOf(10_000)];
    server.clock.frozenAtMs = Date.now();
    for (let i = 0; i < burst; i++) await balance(first);
    tooMany(await balance(first));
    expect((await balance(second)).status).toBe(200);
  });
});
