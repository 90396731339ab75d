import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { turkeyDayOf } from "../../src/domain/turkey-time.js";
import { consoleCall, consoleLogin } from "../support/console.js";
import { STORES, startTestServer, type TestServer } from "../support/harness.js";
import { addAccount, createFirm, depositBody, send, type TestFirm } from "../support/merchant.js";

/**
 * Who approves with a statement line (issue 45): a line an operator types that proves a deposit is
 * that operator's approval, not the service's; and a line booked before its deposit was made
 * approves it only by an admin's hand. Through the real server, on both stores.
 */
describe.each(STORES)("who approves with a statement line (%s)", (kind) => {
  let server: TestServer;
  let account: { id: number; iban: string };
  let firm: TestFirm;
  const DAY_MS = 86_400_000;

  beforeAll(async () => {
    server = await startTestServer(kind, { LOG_LEVEL: "warn" });
    account = await addAccount(server);
    firm = await createFirm(server);
  });
  afterAll(async () => {
    await server?.close();
  });

  async function deposit(overrides: Record<string, unknown>) {
    const body = depositBody(overrides);
    expect((await send(server, firm, { path: "/paymentapi/v1/deposits", body })).status).toBe(200);
    const q = await send(server, firm, {
      path: `/paymentapi/v1/transactions/by-reference/${body.reference}`,
    });
    return { id: q.json.data.id as number, at: Date.parse(q.json.data.created_at) };
  }
  async function operator(role: "operator" | "admin") {
    const email = `${role}-${Math.random().toString(36).slice(2)}@ops.example`;
    await server.admin("POST", "/admin/v1/operators", { email, role, password: "operator-password-123" });
    const s = await consoleLogin(server, email, "operator-password-123");
    const call = (method: string, path: string, body?: unknown) =>
      consoleCall(server, method, path, { cookie: s.cookie, csrf: s.csrf, body });
    return { actor: `operator:${email}`, call };
  }
  const tx = async (id: number) => (await server.admin("GET", `/admin/v1/transactions/${id}`)).json;
  const lineOf = async (id: number) => (await server.admin("GET", `/admin/v1/statement-lines/${id}`)).json;
  const iso = (ms: number) => new Date(ms).toISOString();
  /** A line typed with the admin token; whatever it proves, nothing here. */
  async function typed(line: Record<string, unknown>) {
    const res = await server.admin("POST", `/admin/v1/accounts/${account.id}/statement-lines`, {
      sender_name: "BASKA BIRI",
      description: "havale",
      ...line,
    });
    expect(res.status).toBe(200);
    return res.json.results[0] as { id: number; state: string };
  }

  it("a line an operator types that proves a deposit approves it in that operator's name", async () => {
    const d = await deposit({ first_name: "Zehra", last_name: "Kılıç", amount: "180.00" });
    const ops = await operator("operator");
    const res = await ops.call("POST", `/ops/api/accounts/${account.id}/statement-lines`, {
      booked_at: iso(d.at + 1_000),
      amount: "180.00",
      sender_name: "ZEHRA KILIC",
      bank_ref: `T-${d.id}`,
    });
    expect(res.status).toBe(200);
    const [result] = res.json.results;
    expect(result).toMatchObject({ state: "approved", transaction_id: d.id });
    expect(await tx(d.id)).toMatchObject({ status: "approved", decided_by: ops.actor });
    expect(await lineOf(result.id)).toMatchObject({ state: "approved", decided_by: ops.actor });
    const audit = await server.admin("GET", `/admin/v1/audit?action=transaction.approve&entity_id=${d.id}`);
    expect(audit.json.map((e: { actor: string }) => e.actor)).toEqual([ops.actor]);

    // Typed with the admin token: the admin API's approval.
    const e = await deposit({ first_name: "Levent", last_name: "Baş", amount: "181.00" });
    const byApi = await typed({ booked_at: iso(e.at + 1_000), amount: "181.00", sender_name: "LEVENT BAS" });
    expect(byApi.state).toBe("approved");
    expect((await tx(e.id)).decided_by).toBe("admin-api");
  });

  it("a line booked before its deposit was made approves it only by an admin's hand", async () => {
    const d = await deposit({ first_name: "Sibel", last_name: "Can", amount: "90.00" });
    // The test's line: booked 20 days before the deposit existed.
    const early = await typed({ booked_at: iso(d.at - 20 * DAY_MS), amount: "90.00" });
    expect(early.state).toBe("unmatched");
    const ops = await operator("operator");
    const byOperator = await ops.call("POST", `/ops/api/statement-lines/${early.id}/approve`, {
      transaction_id: d.id,
    });
    expect(byOperator.status).toBe(403);
    expect(byOperator.json.message).toBe(
      `this line was booked at ${iso(d.at - 20 * DAY_MS)}, before the deposit was made (${iso(d.at)}): ` +
        "approving with it needs an admin",
    );
    expect((await tx(d.id)).status).toBe("pending");
    expect((await lineOf(early.id)).state).toBe("unmatched");

    // A line with a date only counts until its day ends: two days before is still before.
    const dayOnly = await typed({ booked_at: turkeyDayOf(d.at - 2 * DAY_MS), amount: "90.00" });
    const byDay = await ops.call("POST", `/ops/api/statement-lines/${dayOnly.id}/approve`, {
      transaction_id: d.id,
    });
    expect(byDay.status).toBe(403);
    expect(byDay.json.message).toMatch(/^this line was booked on \d{4}-\d{2}-\d{2}, before the deposit/);

    const admin = await operator("admin");
    const byAdmin = await admin.call("POST", `/ops/api/statement-lines/${early.id}/approve`, {
      transaction_id: d.id,
    });
    expect(byAdmin.status).toBe(200);
    expect(await tx(d.id)).toMatchObject({ status: "approved", decided_by: admin.actor });
  });

  it("an operator approves with a line booked on the deposit's day, or within the clocks' tolerance", async () => {
    const ops = await operator("operator");
    const approve = (line: number, transaction_id: number) =>
      ops.call("POST", `/ops/api/statement-lines/${line}/approve`, { transaction_id });
    const d = await deposit({ first_name: "Oya", last_name: "Er", amount: "70.00" });
    // A minute before the deposit's own time: the server's clock and the bank's differ that much.
    const close = await typed({ booked_at: iso(d.at - 60_000), amount: "69.00" });
    expect((await approve(close.id, d.id)).status).toBe(200);
    expect(await tx(d.id)).toMatchObject({ status: "approved", decided_by: ops.actor });

    const e = await deposit({ first_name: "Ece", last_name: "Su", amount: "71.00" });
    const sameDay = await typed({ booked_at: turkeyDayOf(e.at), amount: "70.50" });
    expect((await approve(sameDay.id, e.id)).status).toBe(200);
    expect((await tx(e.id)).status).toBe("approved");
  });
});
