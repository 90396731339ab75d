import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { STORES, startTestServer, type TestServer } from "../support/harness.js";
import { addAccount, createFirm, depositBody, send } from "../support/merchant.js";

/**
 * A changed webhook says what it does not reach (issue 49, point 4): the transactions made before
 * keep their callback URL and its retries. A change that leaves the webhook as it was says nothing.
 */
describe.each(STORES)("a firm's webhook changed (%s)", (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind, { LOG_LEVEL: "warn" });
  });
  afterAll(() => server?.close());

  it("names the earlier transactions' callback URL when the webhook changes, and only then", async () => {
    const firm = await createFirm(server, { webhook_url: "http://127.0.0.1:9/old" });
    const changed = await server.admin("PATCH", `/admin/v1/firms/${firm.id}`, {
      webhook_url: "http://127.0.0.1:9/new",
    });
    expect(changed.status).toBe(200);
    expect(changed.json.webhook_url).toBe("http://127.0.0.1:9/new");
    expect(changed.json.note).toMatch(/^transactions made before this change keep the callback URL/);
    expect(changed.json.kept_elsewhere).toEqual({ transactions: 0, callbacks: 0, sessions: 0 });
    const same = await server.admin("PATCH", `/admin/v1/firms/${firm.id}`, {
      webhook_url: "http://127.0.0.1:9/new",
    });
    expect(same.json.note).toBeUndefined();
    const other = await server.admin("PATCH", `/admin/v1/firms/${firm.id}`, { rate_limit_per_second: 50 });
    expect(other.json.note).toBeUndefined();
  });

  it("counts what still goes to the old webhook, and moves it on an admin's word, audited", async () => {
    await addAccount(server);
    const firm = await createFirm(server, { webhook_url: "http://127.0.0.1:9/before" });
    const made: number[] = [];
    for (let i = 0; i < 3; i++) {
      const body = depositBody();
      expect((await send(server, firm, { path: "/paymentapi/v1/deposits", body })).status).toBe(200);
      const q = await send(server, firm, {
        path: `/paymentapi/v1/transactions/by-reference/${body.reference}`,
      });
      made.push(q.json.data.id as number);
    }
    // One chose its own callback URL (same host as the webhook): it is not the webhook's, and stays.
    const own = depositBody();
    const ownSent = await send(server, firm, {
      path: "/paymentapi/v1/deposits",
      body: own,
      headers: { "x-callback-url": "http://127.0.0.1:9/own" },
    });
    expect(ownSent.status).toBe(200);
    const ownId = (
      await send(server, firm, { path: `/paymentapi/v1/transactions/by-reference/${own.reference}` })
    ).json.data.id as number;
    // One decided before the change: its callback is queued to the old URL (nobody listens there).
    expect(
      (await server.admin("POST", `/admin/v1/transactions/${made[0]}/reject`, { actor: "cli:test" })).status,
    ).toBe(200);
    const changed = await server.admin("PATCH", `/admin/v1/firms/${firm.id}`, {
      webhook_url: "http://127.0.0.1:9/after",
    });
    expect(changed.json.kept_elsewhere).toMatchObject({ transactions: 2 });
    expect(changed.json.kept_elsewhere.callbacks).toBeGreaterThanOrEqual(0);
    expect(changed.json.note).toMatch(/2 pending transaction\(s\)/);
    expect(changed.json.note).toMatch(/firm move-callbacks ID --from/);

    const from = { from: "http://127.0.0.1:9/before" };
    const moves = `/admin/v1/firms/${firm.id}/move-callbacks`;
    const moved = await server.admin("POST", moves, from);
    expect(moved.status).toBe(200);
    expect(moved.json).toMatchObject({ firm: firm.id, ...from, webhook_url: "http://127.0.0.1:9/after" });
    expect(moved.json.moved.transactions).toBe(2);
    // Nothing is left to move: a second move moves nothing.
    expect((await server.admin("POST", moves, from)).json.moved).toEqual({
      transactions: 0,
      callbacks: 0,
      sessions: 0,
    });
    // The webhook it has now is no earlier one; and a move names what it moves from.
    expect((await server.admin("POST", moves, { from: "http://127.0.0.1:9/after" })).status).toBe(400);
    expect((await server.admin("POST", moves, {})).json.code).toBe("invalid_input");
    const audit = await server.admin("GET", `/admin/v1/audit?entity_type=firm&entity_id=${firm.id}`);
    expect(JSON.stringify(audit.json)).toContain("firm.move_callbacks");
    // The pending ones now call the new webhook when decided.
    expect(
      (await server.admin("POST", `/admin/v1/transactions/${made[1]}/approve`, { actor: "cli:test" })).status,
    ).toBe(200);
    const cbs = await server.admin("GET", `/admin/v1/transactions/${made[1]}`);
    expect(JSON.stringify(cbs.json)).toContain("http://127.0.0.1:9/after");
    expect(
      (await server.admin("POST", `/admin/v1/transactions/${ownId}/approve`, { actor: "cli:test" })).status,
    ).toBe(200);
    const ownCallbacks = JSON.stringify((await server.admin("GET", `/admin/v1/transactions/${ownId}`)).json);
    expect(ownCallbacks).toContain("http://127.0.0.1:9/own");
    expect(ownCallbacks).not.toContain("http://127.0.0.1:9/after");
  });

  it("an unknown firm is refused", async () => {
    const from = { from: "http://127.0.0.1:9/x" };
    expect((await server.admin("POST", "/admin/v1/firms/999999/move-callbacks", from)).json.code).toBe(
      "firm_not_found",
    );
  });
});
