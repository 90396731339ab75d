import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signFeedRequest } from "../../src/crypto/signature.js";
import { consoleCall, consoleLogin } from "../support/console.js";
import { STORES, startTestServer, type TestServer } from "../support/harness.js";
import { addAccount, createFirm, depositWithCode, type TestFirm } from "../support/merchant.js";
import { type Receiver, startReceiver } from "../support/receiver.js";

/**
 * Statement lines that come one by one (issue 34): the live feed, signed per account, and lines an
 * operator types; and what operators do with the lines left to them: approve a deposit with one,
 * for the bank's amount, or mark one not ours. Through the real server, on both stores.
 */
describe.each(STORES)("statement feed and operators' lines (%s)", (kind) => {
  let server: TestServer;
  let receiver: Receiver;
  let account: { id: number; iban: string };
  let other: { id: number; iban: string };
  let firm: TestFirm;
  let secret: string;

  beforeAll(async () => {
    server = await startTestServer(kind, { PAYINTAKE_CALLBACK_POLL_MS: "25", LOG_LEVEL: "warn" });
    account = await addAccount(server);
    other = await addAccount(server, { iban: "TR330006400000011234567890" });
    // Routed to no deposit: every deposit here is shown `account`.
    expect((await server.admin("PATCH", `/admin/v1/accounts/${other.id}`, { active: false })).status).toBe(
      200,
    );
    receiver = await startReceiver();
    firm = await createFirm(server, { webhook_url: receiver.url, answer_payment_code: true });
    const made = await server.admin("POST", `/admin/v1/accounts/${account.id}/feed-secret`, {
      silence_minutes: 15,
    });
    expect(made.status).toBe(200);
    secret = made.json.secret;
  });
  afterAll(async () => {
    await receiver?.close();
    await server?.close();
  });

  async function post(
    body: unknown,
    opts: { accountId?: number; signFor?: number; key?: string; timestamp?: number } = {},
  ) {
    const accountId = opts.accountId ?? account.id;
    const raw = Buffer.from(typeof body === "string" ? body : JSON.stringify(body));
    const timestamp = String(opts.timestamp ?? Math.floor(Date.now() / 1000));
    const signedPath = `/feed/v1/accounts/${opts.signFor ?? accountId}/lines`;
    const res = await request(`${server.url}/feed/v1/accounts/${accountId}/lines`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-feed-timestamp": timestamp,
        "x-feed-signature": signFeedRequest(opts.key ?? secret, timestamp, signedPath, raw),
      },
      body: raw,
    });
    return { status: res.statusCode, json: (await res.body.json()) as any };
  }
  // The code as the merchant is given it (the firm answers with codes): the store's key makes it.
  const deposit = (overrides: Record<string, unknown> = {}) => depositWithCode(server, firm, overrides);
  const tx = async (id: number) => (await server.admin("GET", `/admin/v1/transactions/${id}`)).json;
  const lineCount = async () =>
    (await server.admin("GET", "/admin/v1/statement-lines?limit=1000")).json.length as number;
  const feedOf = async (id: number) =>
    ((await server.admin("GET", "/admin/v1/statement-feeds")).json as any[]).find((f) => f.account_id === id);
  const iso = (ms: number) => new Date(ms).toISOString();
  async function operator(role: "operator" | "viewer" | "admin") {
    const email = `${role}-${Math.random().toString(36).slice(2)}@ops.example`;
    await server.admin("POST", "/admin/v1/operators", { email, role, password: "operator-password-123" });
    const s = await consoleLogin(server, email, "operator-password-123");
    return (method: string, path: string, body?: unknown) =>
      consoleCall(server, method, path, { cookie: s.cookie, csrf: s.csrf, body });
  }
  const dashboard = async () => {
    const ops = await operator("viewer");
    return (await ops("GET", "/ops/api/dashboard")).json.statements;
  };

  it("a feed's secret is shown once; until the feed speaks it is silent, an empty list says it lives", async () => {
    const before = await feedOf(account.id);
    expect(before).toMatchObject({ silence_minutes: 15, last_at: null, silent: true });
    expect(JSON.stringify(before)).not.toContain(secret);
    const audit = await server.admin("GET", `/admin/v1/audit?action=account.feed_secret`);
    expect(JSON.stringify(audit.json)).not.toContain(secret);
    const alive = await post({ lines: [] });
    expect(alive.status).toBe(200);
    expect(alive.json).toMatchObject({ lines: 0, credits: 0, results: [] });
    expect(await feedOf(account.id)).toMatchObject({ silent: false });
    expect((await dashboard()).silent_feeds).not.toContain(account.id);
  });

  it("a line with the code and the amount approves its deposit, once; the callback goes out", async () => {
    const d = await deposit({ amount: "420.00" });
    const line = {
      booked_at: iso(d.at + 2_000),
      amount: "420.00",
      sender_name: "AHMET YILMAZ",
      description: `FAST ${d.code}`,
      bank_ref: `FEED-${d.id}`,
    };
    const before = receiver.received.length;
    const r = await post(line);
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ lines: 1, credits: 1, approved: 1, duplicates: 0 });
    expect(r.json.results[0]).toMatchObject({ duplicate: false, state: "approved", transaction_id: d.id });
    expect(await tx(d.id)).toMatchObject({ status: "approved", decided_by: "service:reconcile" });
    await receiver.waitFor(before + 1);
    // The same line again, alone or in a list: known already, nothing decided twice.
    const again = await post({ lines: [line] });
    expect(again.json).toMatchObject({
      lines: 1,
      duplicates: 1,
      approved: 0,
      results: [{ duplicate: true }],
    });
    const detail = await (await operator("viewer"))("GET", `/ops/api/transactions/${d.id}`);
    expect(detail.json.statement_line).toMatchObject({
      id: r.json.results[0].id,
      source: "feed",
      amount: "420.00",
    });
  });

  it("the same entry twice in one request is one line, and the first copy approves; a line in USD approves nothing", async () => {
    const d = await deposit({ amount: "64.00" });
    // No bank reference: the entry's content is its key, the same for both copies.
    const line = {
      booked_at: iso(d.at + 1_000),
      amount: "64.00",
      description: `EFT ${d.code}`,
    };
    const r = await post({ lines: [line, line] });
    expect(r.json).toMatchObject({ lines: 2, approved: 1, duplicates: 1 });
    expect(r.json.results[0]).toMatchObject({ duplicate: false, state: "approved", transaction_id: d.id });
    expect(r.json.results[1]).toEqual({ duplicate: true });
    expect((await tx(d.id)).status).toBe("approved");

    const e = await deposit({ amount: "65.00" });
    const usd = await post({
      booked_at: iso(e.at + 1_000),
      amount: "65.00",
      currency: "USD",
      description: e.code,
      bank_ref: `USD-${e.id}`,
    });
    expect(usd.json.results[0].state).toBe("suggested");
    const refused = await server.admin(
      "POST",
      `/admin/v1/statement-lines/${usd.json.results[0].id}/approve`,
      {
        transaction_id: e.id,
      },
    );
    expect(refused).toMatchObject({
      status: 409,
      json: { message: "a line in USD approves no deposit: deposits are in TRY" },
    });
    expect((await tx(e.id)).status).toBe("pending");
  });

  it("refuses what is not the account's feed, and writes nothing: wrong key, another account's path, an old time", async () => {
    const count = await lineCount();
    const line = { booked_at: iso(Date.now()), amount: "1.00", bank_ref: `X-${Date.now()}` };
    expect((await post(line, { key: "fs_not-the-secret" })).status).toBe(401);
    // Signed for this account, sent to another's path: the signature covers the path.
    const replayed = await post(line, { accountId: other.id, signFor: account.id });
    expect(replayed).toMatchObject({ status: 401, json: { message: "Invalid feed signature" } });
    const old = await post(line, { timestamp: Math.floor(Date.now() / 1000) - 3_600 });
    expect(old.status).toBe(401);
    expect(old.json.message).toMatch(/X-Feed-Timestamp/);
    // An account without a feed answers as a wrong key does.
    expect((await post(line, { accountId: other.id })).json.message).toBe("Invalid feed signature");
    expect(await lineCount()).toBe(count);
    // The operators' routes want the admin token or a console session, as every operator route does.
    for (const path of [
      "/admin/v1/statement-lines",
      "/ops/api/statement-lines",
      "/admin/v1/statement-feeds",
    ]) {
      const res = await request(`${server.url}${path}`, { headers: { authorization: "Bearer wrong" } });
      expect(res.statusCode).toBe(401);
      await res.body.dump();
    }
  });

  it("a bad line refuses the whole request, naming it; nothing of it is written", async () => {
    const count = await lineCount();
    const good = { booked_at: iso(Date.now()), amount: "5.00", bank_ref: `G-${Date.now()}` };
    const bad = await post({ lines: [good, { booked_at: iso(Date.now()), amount: "1,50" }] });
    expect(bad.status).toBe(400);
    expect(bad.json.message).toBe("lines[1].amount: a positive amount such as 1500.00");
    const zoneless = await post({ booked_at: "2026-11-28T10:00:00", amount: "5.00" });
    expect(zoneless.json.message).toMatch(/^booked_at: /);
    // A day that does not exist is not read as another (Date.parse takes 30 February for 2 March).
    for (const booked_at of ["2026-02-30", "2026-02-30T10:00:00+03:00"])
      expect((await post({ booked_at, amount: "5.00" })).json).toMatchObject({
        message: "booked_at: no such date",
      });
    expect((await post("{not json")).status).toBe(400);
    expect((await post({ booked_at: iso(Date.now()), amount: "5.00", extra: 1 })).status).toBe(400);
    expect(await lineCount()).toBe(count);
  });

  it("an operator approves a suggested deposit with the amount the bank shows; twice is refused", async () => {
    const a = await deposit({ first_name: "Zeynep", last_name: "Koç", amount: "300.00" });
    const b = await deposit({ first_name: "Kerem", last_name: "Aslan", amount: "300.00" });
    // Typed by an operator from the bank's screen: 290.00 from Zeynep, no code.
    const typed = await server.admin("POST", `/admin/v1/accounts/${account.id}/statement-lines`, {
      booked_at: iso(b.at + 1_000),
      amount: "290.00",
      sender_name: "ZEYNEP KOC",
      description: "havale",
    });
    expect(typed.status).toBe(200);
    const [result] = typed.json.results;
    expect(result.state).toBe("suggested");
    const shown = await server.admin("GET", `/admin/v1/statement-lines/${result.id}`);
    expect(shown.json.source).toBe("hand");
    expect(shown.json.candidates[0].transaction.id).toBe(a.id);

    const approved = await server.admin("POST", `/admin/v1/statement-lines/${result.id}/approve`, {
      transaction_id: a.id,
    });
    expect(approved.status).toBe(200);
    // The amount in the form of every other answer's.
    expect(approved.json).toMatchObject({ line_id: result.id, transaction_id: a.id, amount: "290.00" });
    expect(await tx(a.id)).toMatchObject({ status: "approved", amount: "290.00", original_amount: "300.00" });
    expect((await tx(b.id)).status).toBe("pending");
    const twice = await server.admin("POST", `/admin/v1/statement-lines/${result.id}/approve`, {
      transaction_id: b.id,
    });
    expect(twice.status).toBe(409);
    expect((await tx(b.id)).status).toBe("pending");
    const audit = await server.admin("GET", `/admin/v1/audit?action=statement_line.typed`);
    expect(audit.json.some((e: { entity_id: string }) => e.entity_id === String(result.id))).toBe(true);
  });

  it("a line settles one deposit and a deposit is settled by one line; a debit approves nothing", async () => {
    const d = await deposit({ first_name: "Derya", last_name: "Tan", amount: "55.00" });
    const typeLine = async (bank_ref: string, direction = "credit") =>
      (
        await server.admin("POST", `/admin/v1/accounts/${account.id}/statement-lines`, {
          booked_at: iso(d.at + 1_000),
          amount: "55.00",
          direction,
          sender_name: "BASKA BIRI",
          bank_ref,
        })
      ).json.results[0];
    const first = await typeLine(`S1-${d.id}`);
    const second = await typeLine(`S2-${d.id}`);
    const debit = await typeLine(`S3-${d.id}`, "debit");
    expect(debit.state).toBe("debit");
    const refusedDebit = await server.admin("POST", `/admin/v1/statement-lines/${debit.id}/approve`, {
      transaction_id: d.id,
    });
    expect(refusedDebit).toMatchObject({ status: 409, json: { message: "a debit approves nothing" } });
    const ok = await server.admin("POST", `/admin/v1/statement-lines/${first.id}/approve`, {
      transaction_id: d.id,
    });
    expect(ok.status).toBe(200);
    const again = await server.admin("POST", `/admin/v1/statement-lines/${second.id}/approve`, {
      transaction_id: d.id,
    });
    expect(again.status).toBe(409);
    expect((await server.admin("GET", `/admin/v1/statement-lines/${second.id}`)).json.state).not.toBe(
      "approved",
    );
  });

  it("a line marked not ours is audited and leaves the open lines; another account's deposit is unknown to it", async () => {
    const elsewhere = await deposit({ amount: "77.00" });
    const typed = await server.admin("POST", `/admin/v1/accounts/${other.id}/statement-lines`, {
      booked_at: iso(Date.now()),
      amount: "77.00",
      sender_name: "YABANCI",
      bank_ref: `N-${elsewhere.id}`,
    });
    const [line] = typed.json.results;
    // The deposit was shown the first account, not this one.
    const wrongAccount = await server.admin("POST", `/admin/v1/statement-lines/${line.id}/approve`, {
      transaction_id: elsewhere.id,
    });
    expect(wrongAccount.status).toBe(404);
    const marked = await server.admin("POST", `/admin/v1/statement-lines/${line.id}/not-ours`, {
      note: "iade edilecek",
    });
    expect(marked).toMatchObject({ status: 200, json: { state: "not_ours" } });
    const open = await server.admin("GET", `/admin/v1/statement-lines?state=open&account=${other.id}`);
    expect(open.json.map((l: { id: number }) => l.id)).not.toContain(line.id);
    expect((await server.admin("POST", `/admin/v1/statement-lines/${line.id}/not-ours`, {})).status).toBe(
      409,
    );
    const audit = await server.admin("GET", `/admin/v1/audit?action=statement_line.not_ours`);
    expect(audit.json[0]).toMatchObject({ entity_id: String(line.id), after: { note: "iade edilecek" } });
  });

  it("in the console: an operator approves up to the amount asked, an admin above it; a viewer reads only", async () => {
    const d = await deposit({ first_name: "Melis", last_name: "Ön", amount: "100.00" });
    const typeOver = async (ref: string) =>
      (
        await server.admin("POST", `/admin/v1/accounts/${account.id}/statement-lines`, {
          booked_at: iso(d.at + 1_000),
          amount: "120.00",
          sender_name: "BIR AKRABA",
          bank_ref: ref,
        })
      ).json.results[0];
    const line = await typeOver(`O-${d.id}`);
    const viewer = await operator("viewer");
    expect((await viewer("GET", `/ops/api/statement-lines?state=open`)).status).toBe(200);
    const byViewer = await viewer("POST", `/ops/api/statement-lines/${line.id}/approve`, {
      transaction_id: d.id,
    });
    expect(byViewer.status).toBe(403);
    const ops = await operator("operator");
    const byOperator = await ops("POST", `/ops/api/statement-lines/${line.id}/approve`, {
      transaction_id: d.id,
    });
    expect(byOperator).toMatchObject({
      status: 403,
      json: { message: "approving more than the amount asked for needs an admin" },
    });
    const admin = await operator("admin");
    const byAdmin = await admin("POST", `/ops/api/statement-lines/${line.id}/approve`, {
      transaction_id: d.id,
    });
    expect(byAdmin.status).toBe(200);
    expect(await tx(d.id)).toMatchObject({
      status: "approved",
      amount: "120.00",
      decided_by: expect.stringMatching(/^operator:admin-/),
    });
  });

  it("the dashboard counts what lines approved today and the money no deposit took", async () => {
    const s = await dashboard();
    expect(s.approved_automatically).toBeGreaterThanOrEqual(1);
    expect(s.approved_automatically_share).toBeGreaterThan(0);
    expect(s.unmatched_credits).toBeGreaterThanOrEqual(1);
    expect(s.feeds).toBe(1);
  });
});
