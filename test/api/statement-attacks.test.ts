import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signFeedRequest } from "../../src/crypto/signature.js";
import { STORES, startTestServer, type TestServer } from "../support/harness.js";
import { addAccount, createFirm, depositWithCode, type TestFirm } from "../support/merchant.js";
import { camtFile } from "../support/statement-files.js";

/**
 * The statement doors under attack (issue 45), through the real server on both stores: a refused
 * file writes nothing (its import rows included), long texts are cut and the lists still answer, a
 * statement or a feed's batch that does not balance approves nothing and says by how much, and
 * the feed names its limits.
 */
describe.each(STORES)("statements under attack (%s)", (kind) => {
  let server: TestServer;
  let account: { id: number; iban: string };
  let firm: TestFirm;
  let secret: string;

  beforeAll(async () => {
    server = await startTestServer(kind, { LOG_LEVEL: "warn" });
    account = await addAccount(server);
    firm = await createFirm(server, { answer_payment_code: true });
    secret = (await server.admin("POST", `/admin/v1/accounts/${account.id}/feed-secret`, {})).json.secret;
  });
  afterAll(async () => {
    await server?.close();
  });

  async function upload(body: string, type = "application/xml") {
    const res = await request(`${server.url}/admin/v1/accounts/${account.id}/statements`, {
      method: "POST",
      headers: { authorization: `Bearer ${server.adminToken}`, "content-type": type },
      body,
    });
    return { status: res.statusCode, json: (await res.body.json()) as any };
  }
  async function feed(body: unknown) {
    const raw = Buffer.from(JSON.stringify(body));
    const timestamp = String(Math.floor(Date.now() / 1000));
    const path = `/feed/v1/accounts/${account.id}/lines`;
    const res = await request(`${server.url}${path}`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-feed-timestamp": timestamp,
        "x-feed-signature": signFeedRequest(secret, timestamp, path, raw),
      },
      body: raw,
    });
    return { status: res.statusCode, json: (await res.body.json()) as any };
  }
  const deposit = (amount: string) => depositWithCode(server, firm, { amount });
  const status = async (id: number) =>
    (await server.admin("GET", `/admin/v1/transactions/${id}`)).json.status;
  const lineCount = async () =>
    (await server.admin("GET", `/admin/v1/statement-lines?account=${account.id}&limit=500`)).json
      .length as number;
  const day = (at: number) => new Date(at + 3 * 3_600_000).toISOString().slice(0, 10);
  const yymmdd = (at: number) => day(at).slice(2).replaceAll("-", "");
  const mt940 = (body: string[]) =>
    [":20:S1", `:25:${account.iban}`, ":28C:900", ":60F:C261201TRY0,00", ...body, "-"].join("\r\n");
  const empty = () => camtFile({ iban: account.iban, entries: [] });

  it("a refused file writes nothing: no import row, no line", async () => {
    const now = Date.now();
    const stmt = `<Stmt><Acct><Id><IBAN>${account.iban}</IBAN></Id></Acct></Stmt>`;
    const entry = (inner: string, date = day(now)) =>
      camtFile({ iban: account.iban, entries: [{ amount: "10.00", at: now }] }).replace(
        /<BookgDt>.*<\/BookgDt>/,
        `<BookgDt><Dt>${date}</Dt></BookgDt>${inner}`,
      );
    const first = await upload(empty());
    expect(first.status).toBe(200);
    const hostile: [string, string, RegExp][] = [
      [
        "many statements",
        `<Document><BkToCstmrStmt>${stmt.repeat(1_001)}</BkToCstmrStmt></Document>`,
        /more than 1000 statements/,
      ],
      ["deep nesting in an entry", entry("<a>".repeat(60) + "</a>".repeat(60)), /nested deeper than 40/],
      [
        "a zero amount",
        entry("").replace(
          '<Amt Ccy="TRY">10.00</Amt><CdtDbtInd>CRDT',
          '<Amt Ccy="TRY">0.00</Amt><CdtDbtInd>CRDT',
        ),
        /an entry of zero/,
      ],
      ["a second amount", entry('<Amt Ccy="TRY">5000.00</Amt>'), /two amounts/],
      ["an impossible day", entry("", "2026-02-30"), /not a date/],
      ["a booking from year 1", entry("", "0001-01-01"), /not a date|400 days/],
      ["a second root", `${empty()}<Document/>`, /second root element/],
      ["a line of an MT940 too long", `:20:S\r\n:86:${"A".repeat(5_000)}`, /longer than 2000 characters/],
    ];
    for (const [what, file, why] of hostile) {
      const res = await upload(file, file.startsWith(":") ? "text/plain" : "application/xml");
      expect([what, res.status]).toEqual([what, 400]);
      expect(res.json.message).toMatch(why);
    }
    // The next import's row comes right after the last one: the refused files made none.
    const next = await upload(empty());
    expect(next.json.statements[0].import_id).toBe(first.json.statements[0].import_id + 1);
    expect(await lineCount()).toBe(0);
  });

  it("long texts are cut with a mark; the open lines still answer; bidi marks are dropped", async () => {
    const at = Date.now() - 60_000;
    const file = camtFile({
      iban: account.iban,
      entries: [
        {
          amount: "7.77",
          at,
          name: `KEMAL \u202eLANUS ${"X".repeat(300)}`,
          description: "D".repeat(200_000),
          ref: "LONG-1",
        },
      ],
    });
    const res = await upload(file);
    expect(res.status).toBe(200);
    const open = await server.admin("GET", `/admin/v1/statement-lines?account=${account.id}&state=open`);
    expect(open.status).toBe(200);
    const line = open.json.find((l: { bank_ref: string }) => l.bank_ref === "LONG-1");
    expect(line.description).toHaveLength(500);
    expect(line.description.endsWith("…")).toBe(true);
    expect(line.sender_name.startsWith("KEMAL LANUS X")).toBe(true);
    expect(line.sender_name).toHaveLength(140);
  });

  it("a statement that does not balance approves nothing: its line is suggested, the difference shown", async () => {
    const d = await deposit("321.00");
    const file = camtFile({
      iban: account.iban,
      sequence: "50",
      entries: [{ amount: "321.00", at: d.at + 1_000, description: d.code, ref: `UNB-${d.id}` }],
      closingOff: 500_000,
    });
    const res = await upload(file);
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ credits: 1, approved: 0, suggested: 1 });
    expect(res.json.statements[0].doubts.join(" ")).toMatch(/do not add up.*a difference of 500000/);
    expect(await status(d.id)).toBe("pending");
    const open = await server.admin("GET", `/admin/v1/statement-lines?account=${account.id}&state=suggested`);
    const line = open.json.find((l: { bank_ref: string }) => l.bank_ref === `UNB-${d.id}`);
    expect(line.evidence.why).toMatch(/unbalanced statement approves nothing/);
    expect(line.held).toEqual({ code: "unbalanced", difference: "5000.00" });
  });

  it("MT940: an entry injected through a narrative approves nothing (the balance breaks)", async () => {
    const d = await deposit("5000.00");
    const date = yymmdd(d.at);
    const file = mt940([
      `:61:${date}C10,00NTRFX//INJ-${d.id}`,
      ":86:ODEME",
      `:61:${date}C5000,00NTRFNONREF`,
      `:86:${d.code}`,
      `:62F:C${date}TRY10,00`,
    ]).replace(":60F:C261201", `:60F:C${date}`);
    const res = await upload(file, "text/plain");
    expect(res.status).toBe(200);
    expect(res.json.approved).toBe(0);
    expect(res.json.statements[0].doubts.join(" ")).toMatch(/do not add up/);
    expect(await status(d.id)).toBe("pending");
  });

  it("the same line balanced approves; a reversal (RvslInd 1) never does", async () => {
    const d = await deposit("44.00");
    const reversal = camtFile({
      iban: account.iban,
      sequence: "60",
      entries: [{ amount: "44.00", at: d.at + 1_000, description: d.code, ref: `RV-${d.id}` }],
    }).replace("<BookgDt>", "<RvslInd>1</RvslInd><BookgDt>");
    expect((await upload(reversal)).json).toMatchObject({ approved: 0 });
    expect(await status(d.id)).toBe("pending");
    const paid = camtFile({
      iban: account.iban,
      sequence: "61",
      entries: [{ amount: "44.00", at: d.at + 2_000, description: d.code, ref: `OK-${d.id}` }],
    });
    expect((await upload(paid)).json).toMatchObject({ approved: 1 });
    expect(await status(d.id)).toBe("approved");
  });

  it("the feed: a batch whose balances do not add up approves nothing; its limits are named", async () => {
    const d = await deposit("12.34");
    const line = {
      booked_at: new Date(d.at + 1_000).toISOString(),
      amount: "12.34",
      description: d.code,
      bank_ref: `FD-${d.id}`,
    };
    const off = await feed({ lines: [line], opening_balance: "100.00", closing_balance: "100.00" });
    expect(off.status).toBe(200);
    expect(off.json).toMatchObject({ approved: 0, suggested: 1 });
    expect(off.json.doubts[0]).toMatch(/a difference of -1234/);
    const held = await server.admin("GET", `/admin/v1/statement-lines/${off.json.results[0].id}`);
    expect(held.json.held).toEqual({ code: "unbalanced", difference: "-12.34" });
    expect(await status(d.id)).toBe("pending");

    const half = await feed({ lines: [line], opening_balance: "100.00" });
    expect([half.status, half.json.message]).toEqual([
      400,
      "opening_balance and closing_balance come together, or neither",
    ]);
    const many = await feed({ lines: Array.from({ length: 1_001 }, () => line) });
    expect([many.status, many.json.message]).toEqual([400, "lines: at most 1000 lines a request"]);
    const ancient = await feed({ ...line, booked_at: "0001-01-01", bank_ref: "OLD" });
    expect([ancient.status, ancient.json.message]).toEqual([400, "booked_at: more than 400 days ago"]);

    const bidi = await feed({ ...line, amount: "1.00", sender_name: "AYSE \u202eKAYA", bank_ref: "BIDI-1" });
    expect(bidi.status).toBe(200);
    const stored = await server.admin("GET", `/admin/v1/statement-lines/${bidi.json.results[0].id}`);
    expect(stored.json.sender_name).toBe("AYSE KAYA");

    const good = await feed({
      lines: [{ ...line, bank_ref: `FD2-${d.id}`, booked_at: new Date(d.at + 2_000).toISOString() }],
      opening_balance: "100.00",
      closing_balance: "112.34",
    });
    expect(good.json).toMatchObject({ approved: 1, doubts: [] });
    expect(await status(d.id)).toBe("approved");
  });
});
