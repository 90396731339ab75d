import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callbackDraft } from "../../src/callbacks/message.js";
import { openStore, type Store } from "../../src/store/engine/open.js";
import { createRepositories, type Repositories } from "../../src/store/index.js";
import { STORES, startTestServer, type TestServer } from "../support/harness.js";
import { addAccount, createFirm, depositBody, send } from "../support/merchant.js";

/**
 * Several instances on one PostgreSQL: three extra stores (as three instances would hold) run the
 * auto-cancel pass and claim callbacks at the same moment. SKIP LOCKED must share the work out,
 * never hand one row to two of them.
 */
describe.skipIf(!STORES.includes("postgres"))("several instances on one PostgreSQL", () => {
  let server: TestServer;
  const stores: Store[] = [];
  const repos: Repositories[] = [];

  beforeAll(async () => {
    server = await startTestServer("postgres", {
      // The server's own passes stay out of the way; the three stores below do the work.
      PAYINTAKE_AUTO_CANCEL_INTERVAL_MS: "3600000",
      PAYINTAKE_CALLBACK_POLL_MS: "60000",
      LOG_LEVEL: "warn",
    });
    await addAccount(server);
    for (let i = 0; i < 3; i++) {
      const store = await openStore({
        databaseUrl: server.env.DATABASE_URL,
        dataDir: "unused",
        pgPoolSize: 4,
      });
      stores.push(store);
      repos.push(createRepositories(store));
    }
  });
  afterAll(async () => {
    for (const s of stores) await s.close();
    await server?.close();
  });

  it("auto-cancel from three instances at once rejects each deposit exactly once, with one callback each", async () => {
    const provider = await server.admin("POST", "/admin/v1/providers", { name: "P", auto_cancel_minutes: 1 });
    const firm = await createFirm(server, { provider_id: provider.json.id, rate_limit_per_second: 100_000 });
    const N = 120;
    await Promise.all(
      Array.from({ length: N }, async () => {
        const res = await send(server, firm, { path: "/paymentapi/v1/deposits", body: depositBody() });
        expect(res.status).toBe(200);
      }),
    );
    const later = server.clock.now() + 10 * 60_000;
    const results = await Promise.all(
      repos.map((r) =>
        r.decisions.autoCancel(later, 25, (tx) => ({
          status: "rejected",
          amount: tx.amount,
          originalAmount: null,
          decidedBy: "service:auto-cancel",
          note: "test",
          callback: (d) => callbackDraft(d, { callbackMiddleName: false }),
          posting: null,
        })),
      ),
    );
    // One pass each takes at most 25; run passes until nothing is left, still three at a time.
    const all = results.flat();
    for (;;) {
      const more = (
        await Promise.all(
          repos.map((r) =>
            r.decisions.autoCancel(later, 25, (tx) => ({
              status: "rejected",
              amount: tx.amount,
              originalAmount: null,
              decidedBy: "service:auto-cancel",
              note: "test",
              callback: (d) => callbackDraft(d, { callbackMiddleName: false }),
              posting: null,
            })),
          ),
        )
      ).flat();
      if (more.length === 0) break;
      all.push(...more);
    }
    expect(all).toHaveLength(N);
    expect(new Set(all).size).toBe(N);
    // Work was shared: the first round already gave rows to more than one instance.
    expect(results.filter((r) => r.length > 0).length).toBeGreaterThan(1);
    const callbacks = await repos[0]?.callbacks.list({ firmId: firm.id, limit: 1000 });
    expect(callbacks).toHaveLength(N);
  });

  it("three workers claiming at once never lease one callback twice", async () => {
    const now = server.clock.now() + 20 * 60_000;
    const claimed = await Promise.all(
      repos.flatMap((r, i) =>
        [0, 1, 2].map((j) =>
          r.callbacks.claimDue({
            now,
            leaseUntil: now + 60_000,
            owner: `w${i}-${j}`,
            limit: 15,
            perOrigin: 1000,
            excludeOrigins: [],
          }),
        ),
      ),
    );
    const ids = claimed.flat().map((c) => c.id);
    expect(ids.length).toBeGreaterThan(0);
    expect(new Set(ids).size).toBe(ids.length);
    // Until the leases run out, nobody gets them again.
    const again = await repos[0]?.callbacks.claimDue({
      now: now + 1_000,
      leaseUntil: now + 61_000,
      owner: "late",
      limit: 1000,
      perOrigin: 1000,
      excludeOrigins: [],
    });
    expect(again?.map((c) => c.id).filter((id) => ids.includes(id))).toEqual([]);
    // After they run out (the worker died), the rows are due again.
    const after = await repos[1]?.callbacks.claimDue({
      now: now + 60_001,
      leaseUntil: now + 120_001,
      owner: "heir",
      limit: 1000,
      perOrigin: 1000,
      excludeOrigins: [],
    });
    expect(after?.map((c) => c.id)).toEqual(expect.arrayContaining(ids));
  });

  it("one claim takes at most perOrigin rows of one receiver (perSlowOrigin of a slow one), however many are due", async () => {
    const now = server.clock.now() + 40 * 60_000;
    const claimed = await repos[2]?.callbacks.claimDue({
      now,
      leaseUntil: now + 60_000,
      owner: "capped",
      limit: 100,
      perOrigin: 5,
      excludeOrigins: [],
    });
    expect(claimed).toHaveLength(5);
    const excluded = await repos[2]?.callbacks.claimDue({
      now,
      leaseUntil: now + 60_000,
      owner: "capped",
      limit: 100,
      perOrigin: 5,
      excludeOrigins: [claimed?.[0]?.origin ?? ""],
    });
    expect(excluded).toHaveLength(0);
    const slow = await repos[2]?.callbacks.claimDue({
      now,
      leaseUntil: now + 60_000,
      owner: "capped",
      limit: 100,
      perOrigin: 5,
      excludeOrigins: [],
      slowOrigins: [claimed?.[0]?.origin ?? ""],
      perSlowOrigin: 2,
    });
    expect(slow).toHaveLength(2);
  });
});
