import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { STORES, startTestServer, type TestServer } from "../support/harness.js";
import { addAccount, createFirm, send, type TestFirm } from "../support/merchant.js";
import { runCli } from "../support/spawn.js";

const README_IBAN = "TR330006100519786457841326";

/**
 * A sample statement (docs/reconciliation.md, "Sample statements"): made by the admin API and the
 * CLI for an account's pending deposits on a development store, and imported through the real
 * statement import it approves them, in both formats, on both stores. Refused where it could
 * mislead: the sandbox account, and a store that holds a bank's line. The CLI is the built one
 * (`npm run build` first).
 */
describe.each(STORES)("sample statements (%s)", (kind) => {
  let server: TestServer;
  let account: { id: number };
  let firm: TestFirm;
  let dir: string;

  beforeAll(async () => {
    server = await startTestServer(kind, { LOG_LEVEL: "warn" });
    account = await addAccount(server, { iban: README_IBAN });
    firm = await createFirm(server, { name: "Demo Shop" });
    dir = mkdtempSync(join(tmpdir(), "payintake-sample-"));
  });
  afterAll(async () => {
    await server?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** The README's deposit: 150.00 from Ayşe Yılmaz, for a user of its own. */
  async function readmeDeposit(userId: string): Promise<number> {
    const reference = `ORD-${kind}-${userId}`;
    const body = {
      amount: "150.00",
      bank_code: "AKBANK",
      first_name: "Ayşe",
      last_name: "Yılmaz",
      username: "ayse@example.com",
      user_id: userId,
      reference,
    };
    expect((await send(server, firm, { path: "/paymentapi/v1/deposits", body })).status).toBe(200);
    const q = await send(server, firm, { path: `/paymentapi/v1/transactions/by-reference/${reference}` });
    return q.json.data.id as number;
  }

  async function upload(file: string, type: string) {
    const res = await request(`${server.url}/admin/v1/accounts/${account.id}/statements`, {
      method: "POST",
      headers: { authorization: `Bearer ${server.adminToken}`, "content-type": type },
      body: file,
    });
    return { status: res.statusCode, json: (await res.body.json()) as any };
  }

  const statusOf = async (id: number) => (await server.admin("GET", `/admin/v1/transactions/${id}`)).json;

  it("a camt.053 sample pays the README's two deposits, and its import approves both", async () => {
    const ids = [await readmeDeposit("42"), await readmeDeposit("43")];
    const sample = await server.admin("GET", `/admin/v1/accounts/${account.id}/statement-sample`);
    expect(sample.status).toBe(200);
    expect(sample.json).toMatchObject({
      format: "camt053",
      account_id: account.id,
      iban: README_IBAN,
      deposits: 2,
      total: "300.00",
      pending_before_window: 0,
      content_type: "application/xml",
    });
    expect(sample.json.purpose).toMatch(/not a bank's.*development store/);
    for (const id of ids)
      expect(sample.json.file).toContain(`<AcctSvcrRef>PAYINTAKE-SAMPLE-${id}</AcctSvcrRef>`);

    const imported = await upload(sample.json.file, "application/xml");
    expect(imported.status).toBe(200);
    expect(imported.json).toMatchObject({ credits: 2, approved: 2, suggested: 0, unmatched: 0 });
    expect(imported.json.statements[0].doubts).toEqual([]);
    for (const id of ids)
      expect(await statusOf(id)).toMatchObject({ status: "approved", decided_by: "service:reconcile" });

    // Approved, they are in no later sample; the same file again is only duplicates.
    const after = await server.admin("GET", `/admin/v1/accounts/${account.id}/statement-sample`);
    expect(after.json).toMatchObject({ deposits: 0, total: "0.00" });
    expect((await upload(sample.json.file, "application/xml")).json).toMatchObject({
      duplicates: 2,
      approved: 0,
    });
  });

  it("the CLI prints an MT940 sample on stdout, what it is on stderr; its import approves the deposits", async () => {
    const ids = [await readmeDeposit("44"), await readmeDeposit("45")];
    const cli = await runCli(["statement", "sample", "--account", String(account.id), "--format", "mt940"], {
      PAYINTAKE_URL: server.url,
      PAYINTAKE_ADMIN_TOKEN: server.adminToken,
    });
    expect(cli.code).toBe(0);
    expect(cli.stdout).toMatch(/^:20:PAYINTAKESAMPLE\r\n/);
    expect(cli.stderr).toContain("not a bank's");
    expect(cli.stderr).toContain("pays 2 pending deposits, 300.00 in all");
    const path = join(dir, "sample.mt940");
    writeFileSync(path, cli.stdout);

    const imported = await runCli(["statement", "import", "--account", String(account.id), path], {
      PAYINTAKE_URL: server.url,
      PAYINTAKE_ADMIN_TOKEN: server.adminToken,
    });
    expect(imported.code).toBe(0);
    expect(JSON.parse(imported.stdout)).toMatchObject({ credits: 2, approved: 2, suggested: 0 });
    for (const id of ids) expect((await statusOf(id)).status).toBe("approved");
  });

  it("a test firm's deposit is in no sample, and the sandbox account has none", async () => {
    const sandbox = await createFirm(server, { sandbox: true });
    const body = { amount: "150.00", bank_code: "AKBANK", first_name: "Ayşe", last_name: "Yılmaz" };
    const res = await send(server, sandbox, {
      path: "/paymentapi/v1/deposits",
      body: { ...body, username: "a@example.com", user_id: "46", reference: `T-${kind}` },
    });
    expect(res.status).toBe(200);
    const live = await server.admin("GET", `/admin/v1/accounts/${account.id}/statement-sample`);
    expect(live.json.deposits).toBe(0);

    const refused = await server.admin("GET", "/admin/v1/accounts/1/statement-sample");
    expect(refused.status).toBe(409);
    expect(refused.json).toMatchObject({ success: false, code: "test_firm_line" });
    expect(refused.json.message).toMatch(/sandbox helpers/);
  });

  it("refuses an unknown account or format with the operator envelope", async () => {
    const none = await server.admin("GET", "/admin/v1/accounts/9999/statement-sample");
    expect(none.status).toBe(404);
    expect(none.json).toMatchObject({ success: false, code: "account_not_found" });
    const pdf = await server.admin("GET", `/admin/v1/accounts/${account.id}/statement-sample?format=pdf`);
    expect(pdf.status).toBe(400);
    expect(pdf.json).toMatchObject({ success: false, code: "invalid_input" });
    const unsigned = await request(`${server.url}/admin/v1/accounts/${account.id}/statement-sample`);
    expect(unsigned.statusCode).toBe(401);
    await unsigned.body.dump();
  });

  // Last: the store is no development store from here on.
  it("once the store holds a line an operator or a bank gave, no sample is made", async () => {
    const typed = await server.admin("POST", `/admin/v1/accounts/${account.id}/statement-lines`, {
      booked_at: new Date(server.clock.now()).toISOString(),
      amount: "10.00",
      sender_name: "MEHMET CAN",
      bank_ref: "FAST-1",
    });
    expect(typed.status).toBe(200);
    const refused = await server.admin("GET", `/admin/v1/accounts/${account.id}/statement-sample`);
    expect(refused.status).toBe(400);
    expect(refused.json).toMatchObject({ success: false, code: "statement_refused" });
    expect(refused.json.message).toMatch(/no development store/);
  });
});
