import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startChannelSim } from "../support/channel-sim.js";
import { consoleCall } from "../support/console.js";
import { STORES, startTestServer, type TestServer } from "../support/harness.js";
import { addAccount, createFirm, depositBody, send } from "../support/merchant.js";

/**
 * Two instances on one PostgreSQL: an operator's change made through one reaches the other's
 * caches at once (LISTEN/NOTIFY), not when its 500 ms cache runs out; a firm's rate limit and an
 * account's daily cap hold for the two together, also for a burst sent to both at once; so does the
 * console's count of failed sign-ins per address.
 */
describe.runIf(STORES.includes("postgres"))(
  "operators' changes and rate limits across instances on one PostgreSQL",
  () => {
    let a: TestServer;
    let b: TestServer;

    beforeAll(async () => {
      a = await startTestServer("postgres", { LOG_LEVEL: "warn" });
      b = await startTestServer("postgres", { LOG_LEVEL: "warn" }, { shareStoreOf: a });
      await addAccount(a);
    });
    afterAll(async () => {
      await b?.close();
      await a?.close();
    });

    /**
     * "At once": the change's notice reaches the other instance within this (no instance shows when
     * it has heard one).
     */
    const settle = () => new Promise((r) => setTimeout(r, 60));
    const query = "/paymentapi/v1/transactions/by-reference/none";

    it("a secret rotated on one instance stops working on the other at once; the new one works there at once", async () => {
      const firm = await createFirm(a);
      // B has the firm in its cache.
      expect((await send(b, firm, { path: query })).status).toBe(404);
      const rotated = await a.admin("POST", `/admin/v1/firms/${firm.id}/rotate-secret`);
      expect(rotated.status).toBe(200);
      await settle();
      expect((await send(b, firm, { path: query })).status).toBe(401);
      expect((await send(b, { ...firm, secret: rotated.json.secret_key }, { path: query })).status).toBe(404);
    });

    it("a burst sent to both instances at once gets no more than the firm's limit between them", async () => {
      // 20 a second with bursts of 40: 40 in a 2-second window, whichever instance answers.
      const firm = await createFirm(a, { rate_limit_per_second: 20 });
      // Both instances' clocks stand at the beginning of a window, so the burst does not straddle two.
      const windowStart = Math.ceil(a.clock.now() / 2_000) * 2_000;
      a.clock.frozenAtMs = b.clock.frozenAtMs = windowStart;
      const answers = await Promise.all(
        Array.from({ length: 80 }, (_, i) => send(i % 2 === 0 ? a : b, firm, { path: query })),
      ).finally(() => {
        a.clock.frozenAtMs = b.clock.frozenAtMs = undefined;
      });
      const through = answers.filter((r) => r.status === 404).length;
      const refused = answers.filter((r) => r.status === 429);
      // Before: each instance let its own 40 through (80 in all).
      expect(through).toBeLessThanOrEqual(40);
      expect(through).toBeGreaterThanOrEqual(36);
      expect(refused.length).toBe(80 - through);
      expect(refused[0]?.json.message).toBe("Too many requests");
    });

    it("a daily cap holds for deposits routed through both instances at the same moment", async () => {
      const sim = await startChannelSim({ kind: "accept", delayMs: 300 });
      try {
        const ch = await a.admin("POST", "/admin/v1/channels", {
          code: "CAPX",
          kind: "http",
          url: sim.url,
          timeout_ms: 2_000,
        });
        expect(ch.status).toBe(201);
        const capped = "TR150000000000000000000091";
        const acc = await a.admin("POST", "/admin/v1/accounts", {
          bank_name: "Capped",
          holder_name: "H",
          iban: capped,
          channel: "CAPX",
          bank_code: "CAPXBANK",
          daily_cap: "300.00",
        });
        expect(acc.status).toBe(201);
        // The whole cap for this firm, not the default share of it the other tests' firms leave it.
        const firm = await createFirm(a, { max_cap_share: 100 });
        await settle();
        const answers = await Promise.all(
          Array.from({ length: 6 }, (_, i) =>
            send(i % 2 === 0 ? a : b, firm, {
              path: "/paymentapi/v1/deposits",
              body: depositBody({ bank_code: "CAPXBANK", amount: "150.00" }),
            }),
          ),
        );
        expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200]);
        // Before: each instance counted only its own deposits in flight, and four took 600.00.
        expect(answers.filter((r) => r.json.assigned_iban === capped)).toHaveLength(2);
        // The others went to the uncapped account, and the capped account's extra asks were let go.
        await vi.waitFor(() => {
          expect(sim.asks.filter((x) => x.body.action === "release")).toHaveLength(4);
        });
      } finally {
        await sim.close();
      }
    });

    it("deposits closed on one instance are refused by the other at once", async () => {
      const firm = await createFirm(a);
      expect((await send(b, firm, { path: "/paymentapi/v1/deposits", body: depositBody() })).status).toBe(
        200,
      );
      expect((await a.admin("PATCH", `/admin/v1/firms/${firm.id}`, { deposits: "closed" })).status).toBe(200);
      await settle();
      const res = await send(b, firm, { path: "/paymentapi/v1/deposits", body: depositBody() });
      expect(res.status).toBe(403);
      expect(res.json.message).toBe("Yatırım şu anda kapalı");
    });

    it("failed console sign-ins from one address are counted once for both instances", async () => {
      // Ten wrong passwords on each instance, unknown emails (password spraying): twenty in all.
      for (let i = 0; i < 20; i++) {
        const res = await consoleCall(i % 2 === 0 ? a : b, "POST", "/ops/api/login", {
          body: { email: `spray${i}@ops.example`, password: "Password123!" },
        });
        expect(res.status).toBe(401);
      }
      // Before (a count per instance): each had seen ten and let the twenty-first through.
      for (const server of [a, b]) {
        const res = await consoleCall(server, "POST", "/ops/api/login", {
          body: { email: "spray-last@ops.example", password: "Password123!" },
        });
        expect(res.status).toBe(429);
        expect(res.json.message).toBe("Too many failed logins from your address; try again later");
      }
    });
  },
);
