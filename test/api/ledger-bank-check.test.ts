import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminCommands } from "../support/admin-commands.js";
import { STORES, startTestServer, type TestServer } from "../support/harness.js";
import { addAccount, createFirm, depositWithCode, type TestFirm } from "../support/merchant.js";
import { camtFile, type Entry } from "../support/statement-files.js";

/**
 * The bank checks the ledger (docs/ledger.md, "The bank's check"): each statement's closing balance
 * against the cash the ledger expects at the account at its end, kept with the import; the lines and
 * postings that make up a difference; a statement without a closing balance is an error, never
 * balanced. A line's money counts from its booking, so an import approving lines booked earlier
 * agrees with the statement's end.
 */
describe.each(STORES)("the bank's check of the ledger (%s)", (kind) => {
  let server: TestServer;
  let account: { id: number; iban: string };
  let firm: TestFirm;

  beforeAll(async () => {
    server = await startTestServer(kind, { LOG_LEVEL: "warn" });
    account = await addAccount(server);
    firm = await createFirm(server, { webhook_url: "http://127.0.0.1:9/cb", answer_payment_code: true });
  });
  afterAll(async () => {
    await server?.close();
  });

  async function upload(body: string) {
    const res = await request(`${server.url}/admin/v1/accounts/${account.id}/statements`, {
      method: "POST",
      headers: { authorization: `Bearer ${server.adminToken}`, "content-type": "application/xml" },
      body,
    });
    return { status: res.statusCode, json: (await res.body.json()) as any };
  }
  const file = (entries: Entry[], sequence: string) => camtFile({ iban: account.iban, entries, sequence });

  it("finds the difference and what makes it up: an approval the bank has not shown, the opening; a credit for nobody held, a fee posted", async () => {
    // Approved by hand: in the ledger's cash, not on the bank's statement.
    const byHand = await depositWithCode(server, firm, { amount: "30.00" });
    expect(
      (await server.admin("POST", `/admin/v1/transactions/${byHand.id}/approve`, { actor: "cli:test" }))
        .status,
    ).toBe(200);
    const paid = await depositWithCode(server, firm, { amount: "100.00" });
    const booked = paid.at + 1_000;
    // The import comes an hour after the bookings: the approval it makes posts then, and counts from its line's booking.
    server.clock.advance(3_600_000);
    const statement = file(
      [
        { amount: "100.00", name: "ALI VELI", description: `odeme ${paid.code}`, ref: "B-1", at: booked },
        { amount: "20.00", name: "KIMSE YOK", description: "havale", ref: "B-2", at: booked + 1_000 },
        {
          amount: "5.00",
          direction: "debit",
          description: "HESAP ISLETIM UCRETI",
          ref: "B-3",
          at: booked + 2_000,
        },
        // A debit nobody recorded: no payout, no fee.
        { amount: "7.00", direction: "debit", description: "GIDEN HAVALE", ref: "B-5", at: booked + 3_000 },
      ],
      "1",
    );
    const imported = await upload(statement);
    expect(imported.status).toBe(200);
    expect(imported.json).toMatchObject({ approved: 1, unmatched: 1 });
    // camtFile opens at 1,000.00: the ledger was given no opening balance, so it is the unexplained rest.
    // The credit for nobody is held in suspense and the bank's fee posted as its lines are written:
    // the ledger's cash is 100 + 30 by hand + 20 held − 5 fee.
    const check = {
      at: new Date(booked + 3_000).toISOString(),
      bank_closing: "1108.00",
      expected: "145.00",
      difference: "963.00",
      problem: null,
      unposted: "-7.00",
      unbanked: "30.00",
    };
    expect(imported.json.statements[0].ledger_check).toEqual(check);

    const balance = await server.admin("GET", `/admin/v1/ledger/accounts/${account.id}/balance`);
    expect(balance.json).toEqual({
      account: account.id,
      expected: "145.00",
      last_statement: "1108.00",
      difference: "963.00",
      check,
    });
    const explained = await server.admin("GET", `/admin/v1/ledger/accounts/${account.id}/check`);
    expect(explained.status).toBe(200);
    expect(explained.json).toMatchObject({ ...check, unexplained: "1000.00" });
    expect(explained.json.unposted_lines).toMatchObject({
      count: 1,
      lines: [{ amount: "-7.00", state: "debit", description: "GIDEN HAVALE" }],
    });
    expect(explained.json.unbanked_postings).toMatchObject({
      count: 1,
      postings: [{ key: `deposit-approved:${byHand.id}`, amount: "30.00" }],
    });
  });

  it("a held line given to a deposit later moves its money from suspense, never into cash twice", async () => {
    const firmBefore = (await server.admin("GET", `/admin/v1/ledger/firms/${firm.id}/balance`)).json.balance;
    const cashBefore = (await server.admin("GET", `/admin/v1/ledger/accounts/${account.id}/balance`)).json
      .expected;
    const lines = await server.admin(
      "GET",
      `/admin/v1/statement-lines?account=${account.id}&state=unmatched`,
    );
    const held = lines.json.find((l: { amount: string }) => l.amount === "20.00");
    const late = await depositWithCode(server, firm, { amount: "20.00" });
    const given = await server.admin("POST", `/admin/v1/statement-lines/${held.id}/approve`, {
      transaction_id: late.id,
    });
    expect(given.status).toBe(200);
    const firmAfter = (await server.admin("GET", `/admin/v1/ledger/firms/${firm.id}/balance`)).json.balance;
    expect(Number(firmAfter) - Number(firmBefore)).toBeCloseTo(20, 2);
    expect((await server.admin("GET", `/admin/v1/ledger/accounts/${account.id}/balance`)).json.expected).toBe(
      cashBefore,
    );
  });

  it("a statement without a closing balance is checked as an error, never balanced", async () => {
    const d = await depositWithCode(server, firm, { amount: "12.00" });
    const withBalance = file(
      [{ amount: "12.00", name: "X Y", description: `odeme ${d.code}`, ref: "B-4", at: d.at + 1_000 }],
      "2",
    );
    const without = withBalance.replace(/<Bal><Tp><CdOrPrtry><Cd>CLBD<\/Cd>.*?<\/Bal>/, "");
    expect(without).not.toContain("CLBD");
    const imported = await upload(without);
    expect(imported.status).toBe(200);
    expect(imported.json.statements[0].ledger_check).toMatchObject({
      bank_closing: null,
      difference: null,
      problem: "no_closing_balance",
    });
    const balance = await server.admin("GET", `/admin/v1/ledger/accounts/${account.id}/balance`);
    expect(balance.json).toMatchObject({
      last_statement: null,
      difference: null,
      check: { problem: "no_closing_balance" },
    });
  });

  it("a held line marked not ours is owed back to its payer: from suspense to refunds due, once", async () => {
    const company = async () => (await server.admin("GET", "/admin/v1/ledger/company")).json;
    const before = await company();
    // The import comes a second after `asked`: the line's hold posts then.
    const asked = server.clock.now();
    server.clock.advance(1_000);
    const at = asked + 500;
    const imported = await upload(
      file([{ amount: "9.00", name: "BILINMEYEN", description: "havale", ref: "B-6", at }], "3"),
    );
    expect(imported.json).toMatchObject({ unmatched: 1 });
    const held = await company();
    expect(Number(held.suspense) - Number(before.suspense)).toBeCloseTo(9, 2);
    const lines = await server.admin(
      "GET",
      `/admin/v1/statement-lines?account=${account.id}&state=unmatched`,
    );
    const line = lines.json.find((l: { amount: string }) => l.amount === "9.00");
    const marked = await server.admin("POST", `/admin/v1/statement-lines/${line.id}/not-ours`, {
      note: "iade",
    });
    expect(marked.status).toBe(200);
    const owed = await company();
    expect(owed).toMatchObject({ commission: held.commission, bank_fees: held.bank_fees });
    expect(Number(owed.suspense)).toBeCloseTo(Number(held.suspense) - 9, 2);
    expect(Number(owed.refunds_due)).toBeCloseTo(Number(held.refunds_due) + 9, 2);
    // The CLI's words for the same read.
    const cli = adminCommands(server.url, { PAYINTAKE_ADMIN_TOKEN: server.adminToken });
    expect(await cli.ok("ledger", "balance", "--company")).toEqual(owed);
    // Marked again: refused, and nothing posts twice.
    expect((await server.admin("POST", `/admin/v1/statement-lines/${line.id}/not-ours`, {})).status).toBe(
      409,
    );
    expect(await company()).toEqual(owed);
    // As of a moment before the import, and one still to come.
    const earlier = await server.admin(
      "GET",
      `/admin/v1/ledger/company?at=${encodeURIComponent(new Date(asked).toISOString())}`,
    );
    expect(earlier.json).toMatchObject({ suspense: before.suspense, refunds_due: before.refunds_due });
    const later = new Date(server.clock.now() + 3_600_000).toISOString();
    expect(
      (await server.admin("GET", `/admin/v1/ledger/company?at=${encodeURIComponent(later)}`)).json,
    ).toMatchObject({
      code: "invalid_input",
    });
  });

  it("the bank's debit that sends a not-ours credit back names it: out of refunds due and the cash, once", async () => {
    const company = async () => (await server.admin("GET", "/admin/v1/ledger/company")).json;
    const cash = async () =>
      (await server.admin("GET", `/admin/v1/ledger/accounts/${account.id}/balance`)).json.expected;
    const at = server.clock.now() + 500;
    server.clock.advance(1_000);
    const imported = await upload(
      file(
        [
          { amount: "12.00", name: "YANLIS GONDEREN", description: "havale", ref: "R-1", at },
          { amount: "12.00", direction: "debit", description: "IADE TR99", ref: "R-2", at: at + 100 },
          { amount: "12.00", direction: "debit", description: "IADE TR98", ref: "R-3", at: at + 200 },
          { amount: "11.00", direction: "debit", description: "GIDEN HAVALE", ref: "R-4", at: at + 300 },
          {
            amount: "12.00",
            direction: "debit",
            description: "IADE EUR",
            ref: "R-5",
            at: at + 400,
            currency: "EUR",
          },
        ],
        "4",
      ),
    );
    expect(imported.status).toBe(200);
    const lines = (await server.admin("GET", `/admin/v1/statement-lines?account=${account.id}`)).json as {
      id: number;
      amount: string;
      description: string;
    }[];
    const lineOf = (description: string) => lines.find((l) => l.description === description)?.id as number;
    const credit = lines.find((l) => l.amount === "12.00" && l.description === "havale")?.id as number;
    const [debit, second, other] = [lineOf("IADE TR99"), lineOf("IADE TR98"), lineOf("GIDEN HAVALE")];
    const refund = (line: number, of: number) =>
      server.admin("POST", `/admin/v1/statement-lines/${line}/refund`, { of, note: "payer asked" });
    // Not marked not ours yet: owed to nobody.
    expect((await refund(debit, credit)).json.code).toBe("refund_not_due");
    expect((await server.admin("POST", `/admin/v1/statement-lines/${credit}/not-ours`, {})).status).toBe(200);
    const owed = await company();
    const cashBefore = await cash();
    expect((await refund(credit, credit)).json.code).toBe("refund_needs_debit");
    expect(await refund(other, credit)).toMatchObject({
      status: 409,
      json: { code: "refund_amount_differs" },
    });
    expect((await refund(lineOf("IADE EUR"), credit)).json.code).toBe("line_currency");
    expect((await refund(debit, 999_999)).status).toBe(404);
    // A free debit's detail offers the credits of its amount owed back; a credit's offers nothing.
    const detail = async (id: number) => (await server.admin("GET", `/admin/v1/statement-lines/${id}`)).json;
    const offered = async (id: number) =>
      ((await detail(id)).refund_candidates as { id: number }[] | null)?.map((c) => c.id) ?? null;
    expect(await offered(debit)).toContain(credit);
    expect(await offered(other)).not.toContain(credit);
    expect(await detail(credit)).toMatchObject({
      refund_candidates: null,
      refunded_by: null,
      refund_of: null,
      refund_due: true,
    });
    expect((await detail(lineOf("IADE EUR"))).refund_candidates).toBeNull();

    const cli = adminCommands(server.url, { PAYINTAKE_ADMIN_TOKEN: server.adminToken });
    const paid = await cli.ok("statement", "refund", String(debit), "--of", String(credit));
    expect(paid).toEqual({
      line_id: debit,
      refund_of: credit,
      amount: "12.00",
      posting_id: expect.any(Number),
    });
    const after = await company();
    expect(Number(after.refunds_due)).toBeCloseTo(Number(owed.refunds_due) - 12, 2);
    expect(after).toMatchObject({ suspense: owed.suspense, commission: owed.commission });
    expect(Number(await cash())).toBeCloseTo(Number(cashBefore) - 12, 2);
    // Each end names the other; the debit offers nothing more, and no debit offers the credit again.
    expect(await detail(debit)).toMatchObject({ refund_of: credit, refund_candidates: null });
    expect(await detail(credit)).toMatchObject({ refunded_by: debit, refund_due: false });
    expect(await offered(second)).not.toContain(credit);
    // Once: the same debit again, or another debit for the same credit, moves nothing.
    expect((await refund(debit, credit)).json.code).toBe("line_closed");
    expect((await refund(second, credit)).json.code).toBe("refund_not_due");
    expect(await company()).toEqual(after);
    // The bank's check no longer lists the refund's debit as a line no posting holds.
    const check = await server.admin("GET", `/admin/v1/ledger/accounts/${account.id}/check`);
    const unposted = check.json.unposted_lines.lines.map((l: { description: string }) => l.description);
    expect(unposted).toEqual(expect.arrayContaining(["IADE TR98", "GIDEN HAVALE"]));
    expect(unposted).not.toContain("IADE TR99");
  });

  it("an unknown account, a moment to come, an account never checked: clear refusals", async () => {
    expect((await server.admin("GET", "/admin/v1/ledger/accounts/999999/balance")).json.code).toBe(
      "account_not_found",
    );
    const later = new Date(server.clock.now() + 3_600_000).toISOString();
    const future = await server.admin(
      "GET",
      `/admin/v1/ledger/accounts/${account.id}/balance?at=${encodeURIComponent(later)}`,
    );
    expect(future.json).toMatchObject({ code: "invalid_input" });
    const other = await addAccount(server, { iban: "TR830006200000000012345678" });
    expect(await server.admin("GET", `/admin/v1/ledger/accounts/${other.id}/check`)).toMatchObject({
      status: 404,
      json: { code: "not_found", message: "no statement of this account has been checked yet" },
    });
    expect((await server.admin("GET", `/admin/v1/ledger/accounts/${other.id}/balance`)).json).toEqual({
      account: other.id,
      expected: "0.00",
      last_statement: null,
      difference: null,
      check: null,
    });
  });
});
