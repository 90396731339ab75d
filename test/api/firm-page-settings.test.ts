import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { STORES, startTestServer, type TestServer } from "../support/harness.js";
import {
  addAccount,
  createFirm,
  depositBody,
  pendingDeposit,
  send,
  type TestFirm,
} from "../support/merchant.js";

/**
 * What the payment page says of a firm (docs/hosted-page.md): the shop's name (`display_name`, the
 * firm's name when unset) and the amount above which it warns of an unusual one (`usual_amount_max`,
 * else ten times the median of the firm's recent approved deposits). Set through the admin API,
 * answered in the page's JSON.
 */
describe.each(STORES)("a firm's payment page settings (%s)", (kind) => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer(kind, { LOG_LEVEL: "warn" });
    await addAccount(server);
  });
  afterAll(async () => {
    await server?.close();
  });

  async function pageState(firm: TestFirm) {
    const body = depositBody({ redirect: true, amount: undefined });
    const opened = await send(server, firm, { path: "/paymentapi/v1/deposits", body });
    const token = (opened.json.payment_url as string).split("/").pop() as string;
    const res = await request(`${server.url}/api/pay/${token}`);
    const text = await res.body.text();
    return { token, text, json: JSON.parse(text) };
  }
  async function approvedDeposits(firm: TestFirm, amounts: string[]) {
    for (const amount of amounts) {
      const id = await pendingDeposit(server, firm, { amount });
      const res = await server.admin("POST", `/admin/v1/transactions/${id}/approve`, { actor: "operator:t" });
      expect(res.status).toBe(200);
    }
  }

  it("display_name and usual_amount_max are set at creation, changed, and taken off with null", async () => {
    const created = await server.admin("POST", "/admin/v1/firms", {
      name: "Kuzey Ticaret Ltd. Şti.",
      display_name: "  Kuzey Market  ",
      usual_amount_max: "5000.00",
    });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({ display_name: "Kuzey Market", usual_amount_max: "5000.00" });
    const plain = await server.admin("POST", "/admin/v1/firms", { name: "Güney A.Ş." });
    expect(plain.json).toMatchObject({ display_name: null, usual_amount_max: null });

    const id = created.json.id as number;
    const changed = await server.admin("PATCH", `/admin/v1/firms/${id}`, {
      display_name: "Kuzey",
      usual_amount_max: "12500.50",
    });
    expect(changed.json).toMatchObject({ display_name: "Kuzey", usual_amount_max: "12500.50" });
    const cleared = await server.admin("PATCH", `/admin/v1/firms/${id}`, {
      display_name: null,
      usual_amount_max: null,
    });
    expect(cleared.json).toMatchObject({ display_name: null, usual_amount_max: null });
    expect((await server.admin("GET", `/admin/v1/firms/${id}`)).json).toMatchObject({ display_name: null });
    const audit = await server.admin("GET", `/admin/v1/audit?entity_type=firm&entity_id=${id}`);
    expect(JSON.stringify(audit.json)).toContain("display_name");
  });

  it("refuses a display name with control or bidi characters, an empty or overlong one, and a bad amount", async () => {
    const plain = await server.admin("POST", "/admin/v1/firms", { name: "Batı Ltd." });
    const id = plain.json.id as number;
    for (const display_name of ["Shop\u202Egnp.exe", "Shop\u0000", "Line\u2028two", "   ", "x".repeat(101)]) {
      const res = await server.admin("PATCH", `/admin/v1/firms/${id}`, { display_name });
      expect(res.status, JSON.stringify(display_name)).toBe(400);
      const create = await server.admin("POST", "/admin/v1/firms", { name: "Doğu Ltd.", display_name });
      expect(create.status, JSON.stringify(display_name)).toBe(400);
    }
    const bidi = await server.admin("PATCH", `/admin/v1/firms/${id}`, { display_name: "Shop\u202E" });
    expect(bidi.json.message).toContain("must not contain control characters");
    for (const usual_amount_max of ["0", "-5", "abc", "1.234", 5000]) {
      const res = await server.admin("PATCH", `/admin/v1/firms/${id}`, { usual_amount_max });
      expect(res.status, String(usual_amount_max)).toBe(400);
    }
    expect((await server.admin("GET", `/admin/v1/firms/${id}`)).json).toMatchObject({
      display_name: null,
      usual_amount_max: null,
    });
  });

  it("the page names the shop by its display name, else the firm's name, while open and assigned; never once closed", async () => {
    const firm = await createFirm(server, { name: "Ayşe'nin Dükkânı Ltd. Şti." });
    expect((await pageState(firm)).json.merchant_name).toBe("Ayşe'nin Dükkânı Ltd. Şti.");
    await server.admin("PATCH", `/admin/v1/firms/${firm.id}`, { display_name: "Ayşe'nin Dükkânı" });
    const { token, json } = await pageState(firm);
    expect(json.merchant_name).toBe("Ayşe'nin Dükkânı");
    const assigned = await request(`${server.url}/api/pay/${token}/deposit`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ amount: "150.00" }),
    });
    const shown = (await assigned.body.json()) as Record<string, unknown>;
    expect(shown).toMatchObject({ status: "assigned", merchant_name: "Ayşe'nin Dükkânı" });
    const q = await send(server, firm, {
      path: `/paymentapi/v1/transactions/by-reference/${shown.reference as string}`,
    });
    await server.admin("POST", `/admin/v1/transactions/${q.json.data.id}/approve`, { actor: "operator:t" });
    const closed = await request(`${server.url}/api/pay/${token}`);
    expect(await closed.body.json()).toEqual({ status: "expired", outcome: "approved", return_url: null });
  });

  it("the usual maximum is the firm's setting when set, else ten times its recent median once it has twenty approved deposits", async () => {
    const set = await createFirm(server);
    await server.admin("PATCH", `/admin/v1/firms/${set.id}`, { usual_amount_max: "5000.00" });
    const setState = await pageState(set);
    expect(setState.text).toContain('"usual_max_amount":5000.00,');

    const firm = await createFirm(server);
    // Nineteen approved deposits say nothing yet; pending and rejected ones never count.
    await approvedDeposits(
      firm,
      Array.from({ length: 19 }, (_, i) => `${100 + i}.00`),
    );
    await pendingDeposit(server, firm, { amount: "90000.00" });
    const rejected = await pendingDeposit(server, firm, { amount: "80000.00" });
    await server.admin("POST", `/admin/v1/transactions/${rejected}/reject`, { actor: "operator:t" });
    expect((await pageState(firm)).json).not.toHaveProperty("usual_max_amount");
    // The figure of a firm without enough deposits is not kept past its time either.
    server.clock.advance(10 * 60_000 + 1);
    // The twentieth: amounts 100.00 to 119.00, median 110.00 (the upper of the two middle ones),
    // ten times it 1,100.00.
    await approvedDeposits(firm, ["119.00"]);
    const judged = await pageState(firm);
    expect(judged.text).toContain('"usual_max_amount":1100.00,');

    // Kept for ten minutes: deposits approved meanwhile change it only after that.
    await approvedDeposits(
      firm,
      Array.from({ length: 25 }, () => "1234.56"),
    );
    expect((await pageState(firm)).text).toContain('"usual_max_amount":1100.00,');
    server.clock.advance(10 * 60_000 + 1);
    // Median 1,234.56: ten times it is 12,345.60, rounded up to two digits: 13,000.00.
    expect((await pageState(firm)).text).toContain('"usual_max_amount":13000.00,');

    // Deposits older than 30 days say nothing of what is usual now.
    server.clock.advance(31 * 24 * 60 * 60_000);
    expect((await pageState(firm)).json).not.toHaveProperty("usual_max_amount");
    // The firm's own setting needs no deposits.
    await server.admin("PATCH", `/admin/v1/firms/${firm.id}`, { usual_amount_max: "750.00" });
    expect((await pageState(firm)).text).toContain('"usual_max_amount":750.00,');
  });
});
