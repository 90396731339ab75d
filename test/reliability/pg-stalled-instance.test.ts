import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PG_BASE_URL, STORES, startTestServer, type TestServer } from "../support/harness.js";
import { addAccount, createFirm, depositBody, send } from "../support/merchant.js";
import { type Receiver, startReceiver } from "../support/receiver.js";
import { startTcpProxy, type TcpProxy } from "../support/tcp-proxy.js";

/**
 * Two instances on one PostgreSQL; one of them freezes in the middle of a decision (a paused
 * container, a network partition: its connection stays open, nothing more comes over it). Its
 * transaction has moved the row and holds its lock. The other instance must still be able to
 * decide that transaction within seconds, and the frozen one's half-made decision must never be
 * committed beside it.
 *
 * Before: PostgreSQL kept the frozen transaction (and its row lock) for as long as the connection
 * looked alive, hours; an operator's decision on the other instance waited on the lock without end,
 * each click holding one more of its pool's connections, and auto-cancel skipped the row for good.
 */
describe.runIf(STORES.includes("postgres"))("an instance frozen mid-decision (PostgreSQL)", () => {
  let proxy: TcpProxy;
  let live: TestServer;
  let frozen: TestServer;
  let receiver: Receiver;

  beforeAll(async () => {
    const env = {
      PAYINTAKE_AUTO_CANCEL_INTERVAL_MS: "3600000",
      PAYINTAKE_CALLBACK_POLL_MS: "50",
      LOG_LEVEL: "silent",
    };
    live = await startTestServer("postgres", env);
    const base = new URL(PG_BASE_URL);
    proxy = await startTcpProxy({ host: base.hostname, port: Number(base.port || 5432) });
    const through = new URL(live.env.DATABASE_URL as string);
    through.port = String(proxy.port);
    frozen = await startTestServer(
      "postgres",
      { ...env, DATABASE_URL: through.toString() },
      { shareStoreOf: live },
    );
    await addAccount(live);
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver?.close();
    await frozen?.close().catch(() => {});
    await proxy?.close();
    await live?.close();
  });

  it("the other instance decides it within seconds; the frozen decision never commits; one callback", async () => {
    const firm = await createFirm(live, { webhook_url: receiver.url });
    const body = depositBody();
    expect((await send(live, firm, { path: "/paymentapi/v1/deposits", body })).status).toBe(200);
    const q = await send(live, firm, { path: `/paymentapi/v1/transactions/by-reference/${body.reference}` });
    const id = q.json.data.id as number;

    // The frozen instance approves: its UPDATE of the transaction reaches PostgreSQL (the row is
    // approved in its open transaction, and locked), the audit row that follows never does.
    const stalled = proxy.stallOn('insert into "audit_log"');
    const frozenAnswer = frozen
      .admin("POST", `/admin/v1/transactions/${id}/approve`, { actor: "operator:frozen" })
      .catch((err: Error) => ({ status: 0, json: { error: err.message } }));
    await stalled;

    const started = Date.now();
    const rejected = await Promise.race([
      live.admin("POST", `/admin/v1/transactions/${id}/reject`, { actor: "operator:live" }),
      new Promise<"still waiting">((r) => setTimeout(() => r("still waiting"), 25_000)),
    ]);
    expect(rejected === "still waiting" ? rejected : rejected.status).toBe(200);
    expect(Date.now() - started).toBeLessThan(20_000);

    // The frozen instance's decision failed as a whole: nothing of it was written.
    expect((await frozenAnswer).status).toBe(500);
    const tx = (await live.admin("GET", `/admin/v1/transactions/${id}`)).json;
    expect(tx.status).toBe("rejected");
    expect(tx.decided_by).toBe("admin-api:operator:live");
    const db = new pg.Client({ connectionString: live.env.DATABASE_URL });
    await db.connect();
    const audit = await db.query(
      "SELECT actor FROM audit_log WHERE entity_type = 'transaction' AND entity_id = $1",
      [String(id)],
    );
    await db.end();
    expect(audit.rows).toEqual([{ actor: "admin-api:operator:live" }]);
    const callbacks = (await live.admin("GET", `/admin/v1/callbacks?firm=${firm.id}`)).json;
    expect(callbacks).toHaveLength(1);
    const [delivered] = await receiver.waitFor(1);
    expect(JSON.parse(delivered?.body ?? "{}").event).toBe("deposit.rejected");
    // Delivered and on record: sent no more.
    await expect
      .poll(async () => (await live.admin("GET", `/admin/v1/callbacks/${callbacks[0].id}`)).json.status)
      .toBe("delivered");
    expect(receiver.received).toHaveLength(1);
  }, 60_000);

  it("a connection cut in the middle of a decision: nothing of it written, and the retry decides once", async () => {
    const firm = await createFirm(live, { webhook_url: receiver.url });
    const body = depositBody();
    expect((await send(live, firm, { path: "/paymentapi/v1/deposits", body })).status).toBe(200);
    const q = await send(live, firm, { path: `/paymentapi/v1/transactions/by-reference/${body.reference}` });
    const id = q.json.data.id as number;
    const before = receiver.received.length;

    // Cut after the UPDATE, before the audit row and the callback: the server sees the connection
    // end and rolls the transaction back.
    const stalled = proxy.stallOn('insert into "audit_log"');
    const answer = frozen.admin("POST", `/admin/v1/transactions/${id}/approve`, { actor: "operator:cut" });
    await stalled;
    proxy.down();
    expect((await answer).status).toBe(500);
    proxy.up();
    const tx = (await live.admin("GET", `/admin/v1/transactions/${id}`)).json;
    expect(tx.status).toBe("pending");
    expect((await live.admin("GET", `/admin/v1/callbacks?firm=${firm.id}`)).json).toHaveLength(0);

    // The operator tries again on the same instance (its pool has dropped the dead connection).
    const again = await frozen.admin("POST", `/admin/v1/transactions/${id}/approve`, {
      actor: "operator:cut",
    });
    expect(again.status).toBe(200);
    await receiver.waitFor(before + 1);
    // Delivered and on record: sent no more.
    await expect
      .poll(
        async () => (await live.admin("GET", `/admin/v1/callbacks/${again.json.callback_id}`)).json.status,
      )
      .toBe("delivered");
    expect(receiver.received.slice(before).map((r) => JSON.parse(r.body).id)).toEqual([id]);
    const db = new pg.Client({ connectionString: live.env.DATABASE_URL });
    await db.connect();
    const audit = await db.query(
      "SELECT actor FROM audit_log WHERE entity_type = 'transaction' AND entity_id = $1",
      [String(id)],
    );
    await db.end();
    expect(audit.rows).toEqual([{ actor: "admin-api:operator:cut" }]);
  }, 60_000);
});
