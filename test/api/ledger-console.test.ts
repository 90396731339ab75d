import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startOfTurkeyDay, turkeyDayOf } from "../../src/domain/turkey-time.js";
import { consoleCall } from "../support/console.js";
import { STORES, startTestServer, type TestServer } from "../support/harness.js";
import { addAccount, createFirm, depositWithCode, type TestFirm } from "../support/merchant.js";
import { type ConsoleOperator, consoleOperator, PAYEE_IBAN, pendingWithdrawal } from "../support/payouts.js";
import { camtFile } from "../support/statement-files.js";

/**
 * The console's "Bakiyeler" through the real server (docs/console.md): every live firm's balance,
 * transit and available after approvals with a commission and a batch not yet sent; each bank
 * account's last check (a difference, a statement without a closing balance, accounts sharing an
 * IBAN on one line); a firm's days by default the last seven, and the days and a day's postings as
 * CSV for machines and for Excel, also from the admin API; admins only.
 */
describe.each(STORES)("the console's balances (%s)", (kind) => {
  let server: TestServer;
  let firm: TestFirm;
  let account: { id: number; iban: string };
  let twin: { id: number };
  let other: { id: number; iban: string };
  let admin: ConsoleOperator;
  let operator: ConsoleOperator;
  let viewer: ConsoleOperator;
  let today: string;

  const approve = async (id: number) =>
    expect(
      (await server.admin("POST", `/admin/v1/transactions/${id}/approve`, { actor: "cli:test" })).status,
    ).toBe(200);
  async function upload(accountId: number, body: string) {
    const res = await request(`${server.url}/admin/v1/accounts/${accountId}/statements`, {
      method: "POST",
      headers: { authorization: `Bearer ${server.adminToken}`, "content-type": "application/xml" },
      body,
    });
    expect(res.statusCode, await res.body.text()).toBe(200);
  }

  beforeAll(async () => {
    server = await startTestServer(kind, { LOG_LEVEL: "warn" });
    // To the next Türkiye noon: the test's minutes, on the server's clock, never cross a midnight.
    const noon = startOfTurkeyDay(server.clock.now()) + 12 * 3_600_000;
    server.clock.advance((noon > server.clock.now() ? noon : noon + 86_400_000) - server.clock.now());
    account = await addAccount(server, { bank_name: "Garanti BBVA", iban: "TR320010009999901234567890" });
    // A second payment account on the same IBAN: one cash account, one line.
    twin = await addAccount(server, { bank_name: "Garanti BBVA", iban: account.iban });
    other = await addAccount(server, { bank_name: "Akbank", iban: "TR900004600000888000123456" });
    firm = await createFirm(server, { name: "Kuzey Oyun A.Ş.", answer_payment_code: true });
    await createFirm(server, { name: "Deneme Firması", sandbox: true });
    const set = await server.admin("PATCH", `/admin/v1/firms/${firm.id}`, {
      commission_deposit: "1.00",
      commission_withdrawal: "0+2.50",
    });
    expect(set.status).toBe(200);
    admin = await consoleOperator(server, "admin", "ledger-admin");
    operator = await consoleOperator(server, "operator", "ledger-operator");
    viewer = await consoleOperator(server, "viewer", "ledger-viewer");
    today = turkeyDayOf(server.clock.now());

    // 100.00 proven by the bank's line, 50.00 approved by hand, a withdrawal of 20.00 paid by hand.
    const paid = await depositWithCode(server, firm, { amount: "100.00" });
    const byHand = await depositWithCode(server, firm, { amount: "50.00" });
    await approve(byHand.id);
    await approve(await pendingWithdrawal(server, firm, { amount: "20.00" }));
    server.clock.advance(60_000);
    await upload(
      account.id,
      camtFile({
        iban: account.iban,
        entries: [
          { amount: "100.00", name: "ALI VELI", description: `odeme ${paid.code}`, ref: "B-1", at: paid.at },
        ],
      }),
    );
    // The other account's statement gives no closing balance: an error, never balanced.
    const withoutClosing = camtFile({ iban: other.iban, entries: [] }).replace(
      /<Bal><Tp><CdOrPrtry><Cd>CLBD<\/Cd>.*?<\/Bal>/,
      "",
    );
    await upload(other.id, withoutClosing);

    // A payout in a batch not yet sent holds 30.00 of the balance back.
    const on = await server.admin("PATCH", "/admin/v1/payouts/settings", { payouts: true, actor: "t" });
    expect(on.status).toBe(200);
    await pendingWithdrawal(server, firm, { amount: "30.00", iban: PAYEE_IBAN });
    const batch = await server.admin("POST", "/admin/v1/payouts/batches", {
      account: other.id,
      firm: firm.id,
      actor: "t",
    });
    expect(batch.status, JSON.stringify(batch.json)).toBe(201);
  });
  afterAll(async () => {
    await server?.close();
  });

  it("each live firm's balance, transit and available in one list; a test firm is left out", async () => {
    const res = await admin.call("GET", "/ops/api/ledger/balances");
    expect(res.status).toBe(200);
    // 150.00 in, 1 % of it (1.50) and the withdrawal with its 2.50 out: 126.00; 30.00 held by the batch.
    expect(res.json.firms).toEqual([
      {
        firm: firm.id,
        name: "Kuzey Oyun A.Ş.",
        active: true,
        balance: "126.00",
        in_transit: "20.00",
        available: "96.00",
        held: "30.00",
      },
    ]);
    expect(res.json.totals).toEqual({ balance: "126.00", in_transit: "20.00", available: "96.00" });
    // The same figures as the admin API's balance of that one firm.
    const one = await server.admin("GET", `/admin/v1/ledger/firms/${firm.id}/balance`);
    expect(one.json).toMatchObject({ balance: "126.00", in_transit: "20.00", available: "96.00" });
  });

  it("each bank account's last check: a difference, a statement without a closing balance, an IBAN's accounts on one line", async () => {
    const res = await admin.call("GET", "/ops/api/ledger/bank-accounts");
    expect(res.status).toBe(200);
    const [first, second] = res.json.accounts;
    expect(res.json.accounts).toHaveLength(2);
    // camtFile opens at 1,000.00, which the ledger was never told: the difference at the statement's
    // end (its last booking, before the approval by hand); the ledger expects 150.00 now.
    expect(first).toMatchObject({
      iban: account.iban,
      accounts: [
        { id: account.id, bank_name: "Garanti BBVA", active: true },
        { id: twin.id, bank_name: "Garanti BBVA", active: true },
      ],
      expected: "150.00",
      last_statement: "1100.00",
      difference: "1000.00",
      state: "difference",
    });
    expect(Date.parse(first.statement_end)).toBeGreaterThan(0);
    expect(second).toMatchObject({
      iban: other.iban,
      expected: "0.00",
      last_statement: null,
      difference: null,
      state: "no_closing_balance",
    });

    const check = await admin.call("GET", `/ops/api/ledger/accounts/${twin.id}/check`);
    expect(check.status).toBe(200);
    expect(check.json).toMatchObject({ difference: "1000.00", unposted: "0.00", unexplained: "1000.00" });
  });

  it("a firm's days, the last seven Türkiye days unless asked, and one day's postings", async () => {
    const res = await admin.call("GET", `/ops/api/ledger/firms/${firm.id}/days`);
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ firm: firm.id, name: "Kuzey Oyun A.Ş.", to: today });
    expect(res.json.days).toHaveLength(7);
    expect(res.json.days[0].date).toBe(res.json.from);
    expect(res.json.days[6]).toMatchObject({
      date: today,
      opening: "0.00",
      deposits: "150.00",
      withdrawals: "-20.00",
      commissions: "-4.00",
      closing: "126.00",
    });
    const day = await admin.call("GET", `/ops/api/ledger/firms/${firm.id}/days/${today}`);
    expect(day.status).toBe(200);
    expect(day.json.postings).toHaveLength(3);
    const refused = await admin.call(
      "GET",
      `/ops/api/ledger/firms/${firm.id}/days?from=${today}&to=2020-01-01`,
    );
    expect([refused.status, refused.json.code]).toEqual([400, "invalid_input"]);
    expect((await admin.call("GET", "/ops/api/ledger/firms/999999/days")).json.code).toBe("firm_not_found");
  });

  it("the days and a day's postings as CSV, for machines and for Excel, from the console and the admin API", async () => {
    const plain = await admin.call(
      "GET",
      `/ops/api/ledger/firms/${firm.id}/days.csv?from=${today}&to=${today}`,
    );
    expect(plain.status).toBe(200);
    expect(plain.headers["content-type"]).toBe("text/csv; charset=utf-8");
    expect(plain.headers["content-disposition"]).toBe(
      `attachment; filename="firm-${firm.id}-days-${today}-${today}.csv"`,
    );
    expect(plain.text).toBe(
      "firm_id,date,opening,deposits,withdrawals,commissions,returns,settlements,adjustments,opening_balance,other,closing\r\n" +
        `${firm.id},${today},0.00,150.00,-20.00,-4.00,0.00,0.00,0.00,0.00,0.00,126.00\r\n`,
    );
    const excel = await admin.call(
      "GET",
      `/ops/api/ledger/firms/${firm.id}/days.csv?from=${today}&to=${today}&format=excel`,
    );
    expect(excel.headers["content-disposition"]).toMatch(/-excel\.csv"$/);
    // Its bytes begin with the BOM (a text decoder drops it: read as bytes).
    const bytes = await request(
      `${server.url}/admin/v1/ledger/firms/${firm.id}/days.csv?from=${today}&to=${today}&format=excel`,
      { headers: { authorization: `Bearer ${server.adminToken}` } },
    );
    expect([...Buffer.from(await bytes.body.arrayBuffer()).subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const [head, line] = excel.text.split("\r\n");
    expect(head?.startsWith("firm_id;date;opening;")).toBe(true);
    expect(line).toBe(`${firm.id};"=""${today}""";0,00;150,00;-20,00;-4,00;0,00;0,00;0,00;0,00;0,00;126,00`);
    // Without a range: the last seven days, as the screen shows them.
    const week = await admin.call("GET", `/ops/api/ledger/firms/${firm.id}/days.csv`);
    expect(week.text.trim().split("\r\n")).toHaveLength(8);

    const postings = await admin.call("GET", `/ops/api/ledger/firms/${firm.id}/days/${today}/postings.csv`);
    expect(postings.status).toBe(200);
    const rows = postings.text.trim().split("\r\n");
    expect(rows[0]).toBe(
      "firm_id,date,posting_id,at,kind,key,amount,deposits,withdrawals,commissions,returns,settlements,adjustments,opening_balance,other,memo",
    );
    expect(rows.slice(1).map((r) => r.split(",").slice(4, 9))).toEqual([
      ["deposit_approved", expect.stringMatching(/^deposit-approved:/), "49.50", "50.00", "0.00"],
      ["withdrawal_paid", expect.stringMatching(/^withdrawal-paid:/), "-22.50", "0.00", "-20.00"],
      ["deposit_approved", expect.stringMatching(/^deposit-approved:/), "99.00", "100.00", "0.00"],
    ]);

    const viaAdmin = await request(
      `${server.url}/admin/v1/ledger/firms/${firm.id}/days.csv?from=${today}&to=${today}`,
      { headers: { authorization: `Bearer ${server.adminToken}` } },
    );
    expect(viaAdmin.statusCode).toBe(200);
    expect(await viaAdmin.body.text()).toBe(plain.text);
    const unknown = await server.admin(
      "GET",
      `/admin/v1/ledger/firms/999999/days.csv?from=${today}&to=${today}`,
    );
    expect([unknown.status, unknown.json.code]).toEqual([404, "firm_not_found"]);
  });

  it("refuses every other role, and no session at all", async () => {
    const paths = [
      "/ops/api/ledger/balances",
      "/ops/api/ledger/bank-accounts",
      `/ops/api/ledger/accounts/${account.id}/check`,
      `/ops/api/ledger/firms/${firm.id}/days`,
      `/ops/api/ledger/firms/${firm.id}/days.csv`,
      `/ops/api/ledger/firms/${firm.id}/days/${today}`,
      `/ops/api/ledger/firms/${firm.id}/days/${today}/postings.csv`,
    ];
    for (const path of paths) {
      for (const who of [operator, viewer]) {
        const res = await who.call("GET", path);
        expect([path, res.status, res.json?.code]).toEqual([path, 403, "role_not_allowed"]);
      }
      expect((await consoleCall(server, "GET", path)).status, path).toBe(401);
    }
  });
});
