import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { STORES, startTestServer, type TestServer } from "../support/harness.js";
import { addAccount, createFirm, depositBody, send } from "../support/merchant.js";
import { eventually, type Receiver, startReceiver } from "../support/receiver.js";

/**
 * Operators' decisions, auto-cancel and redeliveries racing on the same transactions, from two
 * instances on PostgreSQL (one on the embedded store): 60 deposits expire at once while operators
 * approve every one of them on one instance and the other's auto-cancel rejects them, and each
 * approval answered 200 is at once asked to be redelivered through the other instance. Whoever
 * wins, each transaction is decided once: its answer says who (200, or 409 with auto-cancel's
 * decision), one audit entry, one callback row, and every copy the merchant receives carries the
 * final status.
 */
const N = 60;
const MINUTE = 60_000;

describe.each(STORES)("decisions, auto-cancel and redeliveries racing (%s)", (kind) => {
  let a: TestServer;
  let b: TestServer;
  let receiver: Receiver;

  beforeAll(async () => {
    const env = {
      PAYINTAKE_AUTO_CANCEL_INTERVAL_MS: "10",
      PAYINTAKE_CALLBACK_POLL_MS: "25",
      PAYINTAKE_CALLBACK_TIMEOUT_MS: "1000",
      PAYINTAKE_CALLBACK_LEASE_MS: "2000",
      LOG_LEVEL: "warn",
    };
    a = await startTestServer(kind, env);
    b = kind === "postgres" ? await startTestServer(kind, env, { shareStoreOf: a }) : a;
    await addAccount(a);
    receiver = await startReceiver();
  });
  afterAll(async () => {
    if (b !== a) await b?.close();
    await a?.close();
    await receiver?.close();
  });

  it("each transaction is decided once, with one callback carrying its final status", async () => {
    const provider = await a.admin("POST", "/admin/v1/providers", { name: "Race", auto_cancel_minutes: 1 });
    const firm = await createFirm(a, {
      provider_id: provider.json.id,
      webhook_url: receiver.url,
      rate_limit_per_second: 100_000,
    });
    const ids: number[] = [];
    for (let i = 0; i < N; i++) {
      const body = depositBody();
      expect((await send(a, firm, { path: "/paymentapi/v1/deposits", body })).status).toBe(200);
      const q = await send(a, firm, { path: `/paymentapi/v1/transactions/by-reference/${body.reference}` });
      ids.push(q.json.data.id);
    }
    // Operators approve one deposit every 2 ms; halfway through, every deposit's minute is
    // up, on both instances' clocks, and auto-cancel joins the race.
    const expire = new Promise<void>((resolve) =>
      setTimeout(() => {
        a.clock.advance(MINUTE + 1);
        if (b !== a) b.clock.advance(MINUTE + 1);
        resolve();
      }, N),
    );
    const answers = await Promise.all(
      ids.map(async (id, i) => {
        await new Promise((r) => setTimeout(r, 2 * i));
        const r = await a.admin("POST", `/admin/v1/transactions/${id}/approve`, { actor: "operator:racer" });
        if (r.status === 200) {
          const again = await b.admin("POST", `/admin/v1/callbacks/${r.json.callback_id}/redeliver`);
          expect(again.status).toBe(200);
        }
        return { id, status: r.status, message: r.json.message as string | undefined };
      }),
    );
    await expire;
    const approved = new Set(answers.filter((x) => x.status === 200).map((x) => x.id));
    for (const x of answers.filter((y) => y.status !== 200)) {
      expect(x.status).toBe(409);
      expect(x.message).toMatch(/^transaction is not pending \(status: rejected\)/);
    }

    const callbacks = await eventually(async () => {
      const list = (await a.admin("GET", `/admin/v1/callbacks?firm=${firm.id}&limit=1000`)).json as {
        transaction_id: number;
        status: string;
        event: string;
      }[];
      return list.length === N && list.every((c) => c.status === "delivered") ? list : undefined;
    }, 30_000);
    expect(new Set(callbacks.map((c) => c.transaction_id)).size).toBe(N);
    for (const id of ids) {
      const tx = (await a.admin("GET", `/admin/v1/transactions/${id}`)).json;
      if (approved.has(id))
        expect(tx).toMatchObject({ status: "approved", decided_by: "admin-api:operator:racer" });
      else expect(tx).toMatchObject({ status: "rejected", decided_by: "service:auto-cancel" });
      const event = approved.has(id) ? "deposit.approved" : "deposit.rejected";
      expect(callbacks.find((c) => c.transaction_id === id)?.event).toBe(event);
      for (const r of receiver.received.filter((x) => JSON.parse(x.body).id === id))
        expect(JSON.parse(r.body).event).toBe(event);
      // One decision in the audit log, by whoever won.
      const audit = (await a.admin("GET", `/admin/v1/audit?entity_type=transaction&entity_id=${id}`))
        .json as { action: string; actor: string }[];
      const decisions = audit.filter(
        (e) => e.action === "transaction.approve" || e.action === "transaction.reject",
      );
      expect(decisions.map((e) => [e.action, e.actor])).toEqual([
        approved.has(id)
          ? ["transaction.approve", "admin-api:operator:racer"]
          : ["transaction.reject", "service:auto-cancel"],
      ]);
    }
    const got = new Set(receiver.received.map((r) => JSON.parse(r.body).id));
    for (const id of ids) expect(got.has(id)).toBe(true);
    console.log(
      `decision races (${kind}): ${approved.size} approved by operators, ${N - approved.size} auto-cancelled; ${receiver.received.length} deliveries`,
    );
  }, 60_000);
});
