import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { STORES, startTestServer, type TestServer } from "../support/harness.js";
import { addAccount, createFirm, depositWithCode, type TestFirm } from "../support/merchant.js";
import { type Receiver, startReceiver } from "../support/receiver.js";
import { camtFile, type Entry } from "../support/statement-files.js";

/**
 * Bank statements through the real server (issue 34): a camt.053 uploaded to the admin API is read,
 * each line recorded once and matched, and a proven deposit approved with its callback, on both
 * stores.
 */
describe.each(STORES)("bank statements (%s)", (kind) => {
  let server: TestServer;
  let receiver: Receiver;
  let account: { id: number; iban: string };
  let firm: TestFirm;

  beforeAll(async () => {
    server = await startTestServer(kind, { PAYINTAKE_CALLBACK_POLL_MS: "25", LOG_LEVEL: "warn" });
    account = await addAccount(server);
    receiver = await startReceiver();
    firm = await createFirm(server, { webhook_url: receiver.url, answer_payment_code: true });
  });
  afterAll(async () => {
    await receiver?.close();
    await server?.close();
  });

  async function upload(body: string, type = "application/xml", accountId = account.id) {
    const res = await request(`${server.url}/admin/v1/accounts/${accountId}/statements`, {
      method: "POST",
      headers: { authorization: `Bearer ${server.adminToken}`, "content-type": type },
      body,
    });
    return { status: res.statusCode, json: (await res.body.json()) as any };
  }
  // The code as the merchant is given it (its firms answer with codes): the store's key makes it.
  const deposit = (overrides: Record<string, unknown> = {}, from = firm) =>
    depositWithCode(server, from, overrides);
  const tx = async (id: number) => (await server.admin("GET", `/admin/v1/transactions/${id}`)).json;
  const file = (entries: Entry[], sequence?: string) => camtFile({ iban: account.iban, entries, sequence });

  it("a payment with the payer's name and the amount approves the deposit, once; the callback goes out", async () => {
    const d = await deposit({ first_name: "Şükrü", last_name: "Öztürk", amount: "150.00" });
    const statement = file([{ amount: "150.00", name: "SUKRU OZTURK", ref: `F-${d.id}`, at: d.at + 60_000 }]);
    const before = receiver.received.length;
    const first = await upload(statement);
    expect(first.status).toBe(200);
    expect(first.json).toMatchObject({
      lines: 1,
      credits: 1,
      approved: 1,
      suggested: 0,
      unmatched: 0,
      duplicates: 0,
    });
    expect(first.json.statements[0].doubts).toEqual([]);
    const approved = await tx(d.id);
    expect(approved).toMatchObject({ status: "approved", decided_by: "service:reconcile" });
    expect(approved.decision_note).toMatch(/^bank statement line \d+$/);
    await receiver.waitFor(before + 1);
    expect(JSON.parse(receiver.received[before]?.body ?? "")).toMatchObject({ id: d.id, status: "approved" });

    // The same statement again: every line known, nothing decided twice.
    const again = await upload(statement);
    expect(again.json).toMatchObject({ lines: 1, credits: 0, approved: 0, duplicates: 1 });
    const lines = await server.admin("GET", `/admin/v1/statement-lines?account=${account.id}&state=matched`);
    expect(lines.json.filter((l: { transaction_id: number }) => l.transaction_id === d.id)).toHaveLength(1);
  });

  it("the payment code approves whoever's name is on the transfer", async () => {
    const d = await deposit({ amount: "275.50" });
    const statement = file([
      {
        amount: "275.50",
        name: "FATMA KAYA",
        description: `odeme ${d.code.toLowerCase()}`,
        ref: `C-${d.id}`,
        at: d.at + 5_000,
      },
    ]);
    expect((await upload(statement)).json).toMatchObject({ approved: 1 });
    expect((await tx(d.id)).status).toBe("approved");
  });

  it("two pending deposits of the amount: a suggestion, the named payer first; nothing approved", async () => {
    const a = await deposit({ first_name: "Ali", last_name: "Demir", amount: "333.00" });
    const b = await deposit({ first_name: "Can", last_name: "Er", amount: "333.00" });
    const r = await upload(file([{ amount: "333.00", name: "CAN ER", ref: `S-${b.id}`, at: b.at + 1_000 }]));
    expect(r.json).toMatchObject({ credits: 1, approved: 0, suggested: 1 });
    expect((await tx(a.id)).status).toBe("pending");
    expect((await tx(b.id)).status).toBe("pending");
    const [line] = (await server.admin("GET", `/admin/v1/statement-lines?state=suggested&limit=1`)).json;
    expect(line.evidence.suggestions[0].depositId).toBe(b.id);
    expect((await server.admin("GET", `/admin/v1/statement-lines/${line.id}`)).json.state).toBe("suggested");
  });

  it("the README's deposit suggested, not approved: the line says an earlier deposit of the same name and amount stopped it", async () => {
    const payer = { first_name: "Ayşe", last_name: "Yılmaz", amount: "150.00" };
    const earlier = await deposit(payer);
    const approved = await server.admin("POST", `/admin/v1/transactions/${earlier.id}/approve`, {
      actor: "operator:t",
    });
    expect(approved.status).toBe(200);
    const d = await deposit(payer);
    const r = await upload(
      file([{ amount: "150.00", name: "AYSE YILMAZ", ref: `R-${d.id}`, at: d.at + 1_000 }]),
    );
    expect(r.json).toMatchObject({ credits: 1, approved: 0, suggested: 1 });
    const lines = await server.admin(
      "GET",
      `/admin/v1/statement-lines?account=${account.id}&state=suggested`,
    );
    const id = lines.json.find((l: { bank_ref: string }) => l.bank_ref === `R-${d.id}`).id;
    const line = (await server.admin("GET", `/admin/v1/statement-lines/${id}`)).json;
    // The words stay; beside them, the reason names the earlier deposit and its status.
    expect(line.evidence.why).toBe("no deposit is proven");
    expect(line.candidates.map((c: { transaction: { id: number } }) => c.transaction.id)).toEqual([d.id]);
    expect(line.stopped_by).toEqual([
      {
        code: "same_amount_decided",
        deposit_id: d.id,
        deposits: [{ id: earlier.id, status: "approved" }],
        deposit_count: 1,
      },
    ]);
  });

  it("debits are lines, not credits; a payment nothing fits is unmatched; a test firm's deposit is never approved", async () => {
    const sandbox = await createFirm(server, { sandbox: true, webhook_url: receiver.url });
    const s = await deposit({ first_name: "Test", last_name: "Kişi", amount: "444.00" }, sandbox);
    const r = await upload(
      file([
        { amount: "12.00", direction: "debit", description: "EFT MASRAFI", ref: `D-${s.id}`, at: s.at },
        { amount: "999.99", name: "KIMSE YOK", ref: `U-${s.id}`, at: s.at },
        { amount: "444.00", name: "TEST KISI", ref: `T-${s.id}`, at: s.at + 1_000 },
      ]),
    );
    expect(r.json).toMatchObject({ lines: 3, credits: 2, approved: 0, duplicates: 0 });
    expect(r.json.suggested + r.json.unmatched).toBe(2);
    expect((await tx(s.id)).status).toBe("pending");
  });

  it("a statement of another account, a DTD, or another content type is refused and records nothing", async () => {
    const count = async () => (await server.admin("GET", "/admin/v1/statement-lines?limit=1000")).json.length;
    const before = await count();
    const other = await upload(
      camtFile({ iban: "TR120001000000000000000001", entries: [{ amount: "1.00", at: Date.now() }] }),
    );
    expect(other.status).toBe(400);
    expect(other.json.message).toMatch(/it is for the account TR120001000000000000000001, not for account/);
    const dtd = await upload(
      `<?xml version="1.0"?><!DOCTYPE d [<!ENTITY a "aaaa">]><Document>&a;</Document>`,
    );
    expect(dtd.status).toBe(400);
    expect(dtd.json.message).toMatch(/DTD/);
    expect((await upload("{}", "application/json")).status).toBe(415);
    expect((await upload("", "text/plain")).status).toBe(400);
    expect((await upload(file([]), "application/xml", 999_999)).status).toBe(404);
    expect(await count()).toBe(before);
  });

  it("a firm that approves by hand gets a suggestion; one that wants the code is not approved by name", async () => {
    const manual = await createFirm(server, { webhook_url: receiver.url, answer_payment_code: true });
    const patched = await server.admin("PATCH", `/admin/v1/firms/${manual.id}`, { reconcile_auto: false });
    expect(patched.json).toMatchObject({ reconcile_auto: false, reconcile_by_name: true });
    const d = await deposit({ first_name: "Elif", last_name: "Şahin", amount: "61.00" }, manual);
    const r = await upload(file([{ amount: "61.00", description: d.code, ref: `M-${d.id}`, at: d.at }]));
    expect(r.json).toMatchObject({ approved: 0, suggested: 1 });
    expect((await tx(d.id)).status).toBe("pending");

    const codeOnly = await createFirm(server, { webhook_url: receiver.url, answer_payment_code: true });
    await server.admin("PATCH", `/admin/v1/firms/${codeOnly.id}`, { reconcile_by_name: false });
    const e = await deposit({ first_name: "Oğuz", last_name: "Aydın", amount: "62.00" }, codeOnly);
    expect(
      (await upload(file([{ amount: "62.00", name: "OGUZ AYDIN", ref: `N-${e.id}`, at: e.at }]))).json,
    ).toMatchObject({
      approved: 0,
      suggested: 1,
    });
    const viaCode = file([
      { amount: "62.00", name: "OGUZ AYDIN", description: e.code, ref: `N2-${e.id}`, at: e.at },
    ]);
    expect((await upload(viaCode)).json).toMatchObject({ approved: 1 });
  });

  it("a statement that does not add up is imported, with the doubt named; its lines approve nothing", async () => {
    const d = await deposit({ amount: "10.00", first_name: "Nur", last_name: "Ak" });
    const body = camtFile({
      iban: account.iban,
      entries: [{ amount: "10.00", name: "NUR AK", ref: `B-${d.id}`, at: d.at }],
      closingOff: 1,
    });
    const r = await upload(body);
    expect(r.status).toBe(200);
    expect(r.json.statements[0].doubts[0]).toMatch(/do not add up.*a difference of 1 /);
    expect(r.json).toMatchObject({ approved: 0, suggested: 1 });
    expect((await tx(d.id)).status).toBe("pending");
  });

  it("a statement whose number skips some says which never came; one imported late or again is no gap", async () => {
    const own = await addAccount(server, { iban: "TR690001000000000000000000" });
    const numbered = (sequence: string) => camtFile({ iban: own.iban, entries: [], sequence });
    const doubts = async (sequence: string) =>
      (await upload(numbered(sequence), "application/xml", own.id)).json.statements[0].doubts as string[];
    expect(await doubts("10")).toEqual([]);
    expect(await doubts("11")).toEqual([]);
    expect(await doubts("14")).toEqual([
      "statement 14 follows statement 11: statement 12 to 13 was never imported, its payments are unseen",
    ]);
    expect(await doubts("12")).toEqual([]);
    expect(await doubts("11")).toEqual([]);
    expect(await doubts("16")).toEqual([
      "statement 16 follows statement 14: statement 15 was never imported, its payments are unseen",
    ]);
  });
});
