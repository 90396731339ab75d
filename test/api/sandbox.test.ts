import { createHmac } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { consoleCall, consoleLogin } from "../support/console.js";
import { STORES, startTestServer, type TestServer } from "../support/harness.js";
import {
  addAccount,
  createFirm,
  depositBody,
  send,
  type TestFirm,
  withdrawalBody,
} from "../support/merchant.js";
import { eventually, type Receiver, startReceiver } from "../support/receiver.js";

const DEPOSITS = "/paymentapi/v1/deposits";
const helper = (id: number | string, action: "approve" | "reject" | "callback") =>
  `/paymentapi/v1/sandbox/transactions/${id}/${action}`;

describe.each(STORES)("sandbox firms and their test helpers (%s)", (kind) => {
  let server: TestServer;
  let receiver: Receiver;
  let sandbox: TestFirm;
  let live: TestFirm;

  beforeAll(async () => {
    server = await startTestServer(kind, { LOG_LEVEL: "warn", PAYINTAKE_CALLBACK_POLL_MS: "50" });
    receiver = await startReceiver();
    sandbox = await createFirm(server, { webhook_url: receiver.url, sandbox: true });
    live = await createFirm(server, { webhook_url: receiver.url });
  });
  afterAll(async () => {
    await receiver?.close();
    await server?.close();
  });

  async function deposit(firm: TestFirm, overrides: Record<string, unknown> = {}) {
    const body = depositBody(overrides);
    const res = await send(server, firm, { path: DEPOSITS, body });
    const q = await send(server, firm, {
      path: `/paymentapi/v1/transactions/by-reference/${body.reference}`,
    });
    return { res, id: q.json?.data?.id as number | undefined, reference: body.reference as string };
  }

  it("a sandbox firm's deposits get the sandbox account, never the live pool; live firms never see it", async () => {
    expect((await server.admin("GET", `/admin/v1/firms/${sandbox.id}`)).json.sandbox).toBe(true);
    // No live account exists yet: the live firm has nowhere to go, the sandbox firm still does.
    expect((await deposit(live)).res.json).toEqual({
      success: false,
      message: "Bu tutar icin uygun hesap yok",
    });
    const first = await deposit(sandbox);
    expect(first.res.json).toEqual({
      success: true,
      message: "Yatırım talebiniz alındı",
      assigned_bank_name: "Sandbox Bank",
      assigned_holder_name: "payintake sandbox",
      assigned_iban: "TR809999900000000000000001",
    });
    await addAccount(server, { iban: "TR330006100519786457841326" });
    for (let i = 0; i < 3; i++) {
      expect((await deposit(live)).res.json.assigned_iban).toBe("TR330006100519786457841326");
      expect((await deposit(sandbox)).res.json.assigned_iban).toBe("TR809999900000000000000001");
    }
  });

  it("amounts ending in .91 and .92 give the decline and no-account answers", async () => {
    const declined = await deposit(sandbox, { amount: "100.91" });
    expect(declined.res.status).toBe(422);
    expect(declined.res.json).toEqual({ success: false, message: "Ödeme kanalı talebi kabul etmedi" });
    expect(declined.id).toBeUndefined();
    const none = await deposit(sandbox, { amount: "100.92" });
    expect(none.res.json).toEqual({ success: false, message: "Bu tutar icin uygun hesap yok" });
  });

  it("approve (with another amount), reject with a note, and send the callback again, each signed", async () => {
    const a = await deposit(sandbox);
    const approved = await send(server, sandbox, {
      path: helper(a.id as number, "approve"),
      body: { amount: "149.50" },
    });
    expect(approved.status).toBe(200);
    expect(approved.json).toMatchObject({ success: true, status: "approved", amount: "149.50" });
    const got = await eventually(async () => receiver.received.find((r) => JSON.parse(r.body).id === a.id));
    const body = JSON.parse(got.body);
    expect(body).toMatchObject({ event: "deposit.approved", amount: 149.5, reference: a.reference });
    const hash = createHmac("sha256", sandbox.secret)
      .update(`${a.reference}|deposit|approved|149.50`)
      .digest("hex");
    expect(body.hashcode).toBe(hash);
    const again = await send(server, sandbox, { path: helper(a.id as number, "approve"), body: {} });
    expect(again.status).toBe(409);

    const b = await deposit(sandbox);
    const rejected = await send(server, sandbox, {
      path: helper(b.id as number, "reject"),
      body: { note: "test" },
    });
    expect(rejected.json).toMatchObject({ success: true, status: "rejected" });
    await eventually(async () => receiver.received.find((r) => JSON.parse(r.body).id === b.id));

    const before = receiver.received.filter((r) => JSON.parse(r.body).id === a.id).length;
    const resent = await send(server, sandbox, { method: "POST", path: helper(a.id as number, "callback") });
    expect(resent.json).toMatchObject({ success: true, message: "callback queued" });
    await eventually(async () =>
      receiver.received.filter((r) => JSON.parse(r.body).id === a.id).length > before ? true : undefined,
    );
    const pending = await deposit(sandbox);
    const early = await send(server, sandbox, {
      method: "POST",
      path: helper(pending.id as number, "callback"),
    });
    expect(early.status).toBe(409);

    const audit = (await server.admin("GET", `/admin/v1/audit?entity_type=transaction&entity_id=${a.id}`))
      .json;
    expect(audit[0]).toMatchObject({ actor: `sandbox:firm-${sandbox.id}`, action: "transaction.approve" });
  });

  it("live firms get 404 from every helper; nobody reaches another firm's transaction; unsigned is 401", async () => {
    const mine = await deposit(live);
    for (const action of ["approve", "reject", "callback"] as const) {
      const res = await send(server, live, { method: "POST", path: helper(mine.id as number, action) });
      expect(res.status, action).toBe(404);
      expect(res.json).toEqual({ success: false, message: "Not found" });
      const other = await send(server, sandbox, { method: "POST", path: helper(mine.id as number, action) });
      expect(other.status).toBe(404);
      expect(other.json).toEqual({ success: false, message: "transaction not found" });
    }
    expect((await server.admin("GET", `/admin/v1/transactions/${mine.id}`)).json.status).toBe("pending");
    const unsigned = await fetch(`${server.url}${helper(1, "approve")}`, { method: "POST" });
    expect(unsigned.status).toBe(401);
    const bad = await send(server, sandbox, { path: helper("abc", "approve"), body: {} });
    expect(bad.status).toBe(404);
    const open = await deposit(sandbox);
    const wrongBody = await send(server, sandbox, {
      path: helper(open.id as number, "approve"),
      body: { colour: 1 },
    });
    expect(wrongBody.status).toBe(400);
    expect(wrongBody.json.message).toBe('Validation failed: body must be {} or {"amount": "150.00"}');
  });

  it("a reject note follows the operators' rule: a control character is a 400 on both stores (a NUL was a 500 on PostgreSQL)", async () => {
    const open = await deposit(sandbox);
    const path = helper(open.id as number, "reject");
    for (const body of [
      '{"note":"a\\u0000b"}',
      '{"note":"line\\u001bx"}',
      JSON.stringify({ note: "x".repeat(501) }),
    ]) {
      const res = await send(server, sandbox, { path, body });
      expect(res.status, body).toBe(400);
      expect(res.json).toEqual({
        success: false,
        message: "Validation failed: note must be at most 500 characters, no control characters",
      });
    }
    const notText = await send(server, sandbox, { path, body: { note: 5 } });
    expect(notText.json.message).toBe('Validation failed: body must be {} or {"note": "..."}');
    expect((await server.admin("GET", `/admin/v1/transactions/${open.id}`)).json.status).toBe("pending");
    const trimmed = await send(server, sandbox, { path, body: { note: "  test note  " } });
    expect(trimmed.json).toMatchObject({ success: true, status: "rejected" });
    const audit = (await server.admin("GET", `/admin/v1/audit?entity_type=transaction&entity_id=${open.id}`))
      .json;
    expect(JSON.stringify(audit[0])).toContain('"test note"');
  });

  it("test firms' transactions never reach the operators' queues or the summary", async () => {
    const w = withdrawalBody();
    expect((await send(server, sandbox, { path: "/paymentapi/v1/withdrawals", body: w })).status).toBe(200);
    const liveWithdrawal = withdrawalBody();
    expect(
      (await send(server, live, { path: "/paymentapi/v1/withdrawals", body: liveWithdrawal })).status,
    ).toBe(200);
    await server.admin("POST", "/admin/v1/operators", {
      email: `q-${kind}@ops.example`,
      role: "viewer",
      password: "viewer-password-123",
    });
    const session = await consoleLogin(server, `q-${kind}@ops.example`, "viewer-password-123");
    const queue = (await consoleCall(server, "GET", "/ops/api/queue?type=withdrawal", session)).json as {
      reference: string;
      firm_id: number;
    }[];
    expect(queue.some((t) => t.reference === liveWithdrawal.reference)).toBe(true);
    expect(queue.some((t) => t.firm_id === sandbox.id)).toBe(false);
    const figures = async () => {
      const { withdrawals } = (await consoleCall(server, "GET", "/ops/api/dashboard", session)).json;
      return [withdrawals.count, withdrawals.pending_all];
    };
    const before = await figures();
    expect(
      (await send(server, sandbox, { path: "/paymentapi/v1/withdrawals", body: withdrawalBody() })).status,
    ).toBe(200);
    // Neither today's figures nor the count of what waits in the queue.
    expect(await figures()).toEqual(before);
    // Still findable by reference in the search.
    const found = (
      await consoleCall(server, "GET", `/ops/api/transactions?reference=${w.reference}`, session)
    ).json;
    expect(found).toHaveLength(1);
  });

  it("an operator cannot decide a test firm's transaction (CLI, admin API or console); the firm's helpers still can", async () => {
    const w = withdrawalBody({ amount: "999999.99" });
    expect((await send(server, sandbox, { path: "/paymentapi/v1/withdrawals", body: w })).status).toBe(200);
    const id = (
      await send(server, sandbox, { path: `/paymentapi/v1/transactions/by-reference/${w.reference}` })
    ).json.data.id as number;
    const refusal = "a test firm's transactions are decided by the firm itself, with the sandbox helpers";
    // Before: approved (200), and an operator could have paid out a test withdrawal.
    const byApi = await server.admin("POST", `/admin/v1/transactions/${id}/approve`, { actor: "operator:t" });
    expect(byApi.status).toBe(409);
    expect(byApi.json.message).toBe(refusal);
    await server.admin("POST", "/admin/v1/operators", {
      email: `d-${kind}@ops.example`,
      role: "operator",
      password: "operator-password-123",
    });
    const session = await consoleLogin(server, `d-${kind}@ops.example`, "operator-password-123");
    const byConsole = await consoleCall(server, "POST", `/ops/api/transactions/${id}/approve`, {
      ...session,
      body: {},
    });
    expect(byConsole.status).toBe(409);
    expect(byConsole.json.message).toBe(refusal);
    const rejected = await send(server, sandbox, {
      path: `/paymentapi/v1/sandbox/transactions/${id}/reject`,
      body: {},
    });
    expect(rejected.status).toBe(200);
  });
});
