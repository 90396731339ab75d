import { createHash } from "node:crypto";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isPaymentCode } from "../../src/domain/payment-code.js";
import { STORES, startTestServer, type TestServer } from "../support/harness.js";
import {
  addAccount,
  createFirm,
  depositBody,
  send,
  type TestFirm,
  withdrawalBody,
} from "../support/merchant.js";

const NOT_FOUND = '{"success":false,"code":"not_found","message":"Not found"}';
const STATUS_BLOCK = /<script type="application\/json" id="status">([^<]*)<\/script>/;
/** The status the page's HTML carries for page.js, parsed; undefined when it carries none. */
function embedded(html: string): unknown {
  const text = html.match(STATUS_BLOCK)?.[1];
  if (text === undefined) throw new Error("the page has no status block");
  return text === "" ? undefined : JSON.parse(text);
}

describe.each(STORES)("hosted payment sessions (%s)", (kind) => {
  let server: TestServer;
  let firm: TestFirm;

  beforeAll(async () => {
    server = await startTestServer(kind, { LOG_LEVEL: "warn" });
    await addAccount(server);
    // Its queries carry each deposit's payment code: the page must show the same one.
    firm = await createFirm(server, { answer_payment_code: true });
  });
  afterAll(async () => {
    await server?.close();
  });

  async function open(overrides: Record<string, unknown> = {}) {
    const body = depositBody({ redirect: true, amount: undefined, ...overrides });
    const res = await send(server, firm, { path: "/paymentapi/v1/deposits", body });
    expect(res.status).toBe(200);
    return { token: (res.json.payment_url as string).split("/").pop() as string, body, res };
  }
  async function page(method: "GET" | "POST", path: string, body?: unknown) {
    const res = await request(`${server.url}${path}`, {
      method,
      headers: body === undefined ? {} : { "content-type": "application/json" },
      body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
    });
    const text = await res.body.text();
    return {
      status: res.statusCode,
      text,
      json: text.startsWith("{") ? JSON.parse(text) : undefined,
      headers: res.headers,
    };
  }
  /**
   * The guessing test empties this address's bucket: moved on 10 s (the rate limiter reads the
   * server's clock), it is full again.
   */
  const addressLimitRefilled = () => server.clock.advance(10_000);
  const byReference = (reference: unknown) =>
    send(server, firm, { path: `/paymentapi/v1/transactions/by-reference/${reference}` });

  it("opens a session: success, the redirect message and a relative payment_url; no transaction yet", async () => {
    const { res, body, token } = await open();
    expect(res.text).toBe(
      `{"success":true,"message":"Ödeme sayfasına yönlendiriniz","payment_url":"/t/${token}"}`,
    );
    expect(token).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect((await byReference(body.reference)).text).toBe(
      '{"success":false,"message":"transaction not found"}',
    );
    const state = await page("GET", `/api/pay/${token}`);
    expect(state.status).toBe(200);
    expect(state.json).toMatchObject({ status: "open", return_url: null });
    expect(Date.parse(state.json.expires_at) - server.clock.now()).toBeGreaterThan(29 * 60_000);
    expect(state.headers["cache-control"]).toBe("no-store");
    expect(state.headers["referrer-policy"]).toBe("no-referrer");
  });

  it("unknown, malformed and another firm's guessed tokens get a bare 404", async () => {
    for (const token of ["x", "A".repeat(32), "../../admin", "%00", "a".repeat(90)]) {
      const get = await page("GET", `/api/pay/${encodeURIComponent(token)}`);
      expect(get.status, token).toBe(404);
      expect(get.text).toBe(NOT_FOUND);
      const post = await page("POST", `/api/pay/${encodeURIComponent(token)}/deposit`, { amount: "abc" });
      expect(post.status, token).toBe(404);
      expect(post.text).toBe(NOT_FOUND);
    }
  });

  it("amount submission: bad amounts get the API's messages, a valid one assigns the account and opens the transaction", async () => {
    const { token, body } = await open({ return_url: "https://shop.example/back" });
    const bad: [unknown, string][] = [
      [{}, "Validation failed: Amount is required"],
      [{ amount: "" }, "Validation failed: Amount is required"],
      [{ amount: 250 }, "Validation failed: Amount must be a string"],
      [{ amount: "abc" }, "Validation failed: Amount must be a decimal number"],
      [{ amount: "-5" }, "Validation failed: Amount must be greater than 0"],
      [{ amount: "0" }, "Validation failed: Amount must be greater than 0"],
      [{ amount: "1.234" }, "Validation failed: Amount must have at most 2 decimal places"],
      [{ amount: "99999999999999" }, "Validation failed: Amount must not exceed 999999999.99"],
      ["{not json", "Validation failed: request body is not valid JSON"],
    ];
    for (const [input, message] of bad) {
      const res = await page("POST", `/api/pay/${token}/deposit`, input);
      expect(res.status, JSON.stringify(input)).toBe(400);
      // The page translates by the code; the text is the API's own.
      const code = typeof input === "string" ? "invalid_json" : "invalid_amount";
      expect(res.json).toEqual({ success: false, code, message });
    }
    const ok = await page("POST", `/api/pay/${token}/deposit`, { amount: "250.50" });
    expect(ok.status).toBe(200);
    const q0 = await byReference(body.reference);
    expect(isPaymentCode(q0.json.data.payment_code)).toBe(true);
    expect(ok.json).toEqual({
      status: "assigned",
      merchant_name: expect.stringMatching(/^Firm /),
      bank_name: "Ziraat Bankası",
      holder_name: "Ödeme Hizmetleri A.Ş.",
      iban: "TR330006100519786457841326",
      amount: 250.5,
      payment_code: q0.json.data.payment_code,
      reference: body.reference,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      return_url: "https://shop.example/back",
    });
    // A JSON number with its 2 decimals in the raw text, as in every answer (decisions.md).
    expect(ok.text).toContain('"amount":250.50,');
    const q = await byReference(body.reference);
    expect(q.status).toBe(200);
    expect(q.text).toContain('"amount":250.50');
    expect(q.json.data).toMatchObject({ first_name: body.first_name, national_id: "12***01" });
    expect((await page("GET", `/api/pay/${token}`)).json.status).toBe("assigned");
    // Submitting again shows the same account; no second transaction.
    const again = await page("POST", `/api/pay/${token}/deposit`, { amount: "999.00" });
    expect(again.json).toMatchObject({ status: "assigned", amount: 250.5 });
    expect((await page("GET", `/api/pay/${token}`)).text).toContain('"amount":250.50,');
  });

  it("a business rejection is shown on the page only; the session stays open for another amount", async () => {
    const limited = await createFirm(server, { deposit_max: "100.00" });
    const body = depositBody({ redirect: true, amount: undefined });
    const res = await send(server, limited, { path: "/paymentapi/v1/deposits", body });
    const token = (res.json.payment_url as string).split("/").pop() as string;
    const refused = await page("POST", `/api/pay/${token}/deposit`, { amount: "500.00" });
    expect(refused.status).toBe(403);
    expect(refused.json).toEqual({
      success: false,
      code: "amount_out_of_limits",
      message: "Yatırım tutarı limit dışında",
    });
    expect((await page("GET", `/api/pay/${token}`)).json.status).toBe("open");
    const noTx = await send(server, limited, {
      path: `/paymentapi/v1/transactions/by-reference/${body.reference}`,
    });
    expect(noTx.status).toBe(404);
    const ok = await page("POST", `/api/pay/${token}/deposit`, { amount: "99.99" });
    expect(ok.json.status).toBe("assigned");
  });

  it("the open state carries the firm's deposit limits, only those set, as 2-decimal numbers", async () => {
    const tokenOf = async (f: TestFirm) => {
      const body = depositBody({ redirect: true, amount: undefined });
      const res = await send(server, f, { path: "/paymentapi/v1/deposits", body });
      return (res.json.payment_url as string).split("/").pop() as string;
    };
    const both = await createFirm(server, { deposit_min: "100.00", deposit_max: "50000.00" });
    const state = await page("GET", `/api/pay/${await tokenOf(both)}`);
    expect(state.json).toMatchObject({
      status: "open",
      min_amount: 100,
      max_amount: 50000,
      return_url: null,
    });
    expect(state.text).toContain('"min_amount":100.00,"max_amount":50000.00,');
    const onlyMax = await createFirm(server, { deposit_max: "99.50" });
    const maxState = await page("GET", `/api/pay/${await tokenOf(onlyMax)}`);
    expect(maxState.text).toContain('"max_amount":99.50,');
    expect(maxState.json).not.toHaveProperty("min_amount");
    const none = await page("GET", `/api/pay/${await tokenOf(firm)}`);
    expect(Object.keys(none.json)).toEqual(["status", "merchant_name", "expires_at", "return_url"]);
    // An operator's change is seen by the next poll.
    await server.admin("PATCH", `/admin/v1/firms/${onlyMax.id}`, { deposit_max: "200.00" });
    const token = await tokenOf(onlyMax);
    expect((await page("GET", `/api/pay/${token}`)).text).toContain('"max_amount":200.00,');
  });

  it("the favicon browsers ask for by themselves is an empty answer, not a 404", async () => {
    const icon = await page("GET", "/favicon.ico");
    expect([icon.status, icon.text, icon.headers["cache-control"]]).toEqual([
      204,
      "",
      "public, max-age=86400",
    ]);
  });

  it("an assigned page says by when auto-cancel ends the deposit (pay_by); none without auto-cancel", async () => {
    const provider = (
      await server.admin("POST", "/admin/v1/providers", { name: "Cancels", auto_cancel_minutes: 90 })
    ).json;
    const cancelling = await createFirm(server, { provider_id: provider.id });
    const body = depositBody({ redirect: true, amount: undefined });
    const res = await send(server, cancelling, { path: "/paymentapi/v1/deposits", body });
    const token = (res.json.payment_url as string).split("/").pop() as string;
    const ok = await page("POST", `/api/pay/${token}/deposit`, { amount: "100.00" });
    const q = await send(server, cancelling, {
      path: `/paymentapi/v1/transactions/by-reference/${body.reference}`,
    });
    const created = Date.parse(q.json.data.created_at);
    expect(Date.parse(ok.json.pay_by)).toBe(created + 90 * 60_000);
    expect((await page("GET", `/api/pay/${token}`)).json.pay_by).toBe(ok.json.pay_by);
    // An operator's change of the provider's time is seen by the next poll; 0 turns it off.
    await server.admin("PATCH", `/admin/v1/providers/${provider.id}`, { auto_cancel_minutes: 0 });
    expect((await page("GET", `/api/pay/${token}`)).json).not.toHaveProperty("pay_by");
    const plain = await open();
    const assigned = await page("POST", `/api/pay/${plain.token}/deposit`, { amount: "100.00" });
    expect(assigned.json.status).toBe("assigned");
    expect(assigned.json).not.toHaveProperty("pay_by");
  });

  it("a reference the merchant already used for another deposit is refused on the page, never shown as this payer's; operators are told", async () => {
    const reused = async () =>
      Number(
        /^payintake_hosted_reference_reused_total (\S+)$/m.exec(
          await (await request(`${server.url}/metrics`)).body.text(),
        )?.[1],
      );
    const before = await reused();
    // A payer's own submits at once (two taps, two tabs) are no reuse: those that lose the race to
    // the insert meet the reference taken, by this payer's deposit, and show its account.
    const own = await open();
    const taps = await Promise.all(
      Array.from({ length: 4 }, () => page("POST", `/api/pay/${own.token}/deposit`, { amount: "100.00" })),
    );
    expect(taps.map((t) => t.status)).toEqual([200, 200, 200, 200]);
    expect(await reused()).toBe(before);

    const direct = depositBody({ amount: "100.00" });
    expect((await send(server, firm, { path: "/paymentapi/v1/deposits", body: direct })).status).toBe(200);
    const { token } = await open({ reference: direct.reference });
    const submitted = await page("POST", `/api/pay/${token}/deposit`, { amount: "300.00" });
    expect(submitted.status).toBe(409);
    expect(submitted.json).toEqual({
      success: false,
      code: "duplicate_reference",
      message: "Bu islem numarasi zaten kullanilmis",
    });
    expect((await page("GET", `/api/pay/${token}`)).json.status).toBe("open");
    // The merchant's API answer said nothing (hosted mode checks nothing at creation): a warn line
    // naming the firm and the reference, never the token, and a counter.
    expect(await reused()).toBe(before + 1);
    const lines = server.logs.map((l) => JSON.parse(l)).filter((l) => l.reference === direct.reference);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 40, firmId: firm.id });
    expect(lines[0].msg).toContain("reference already used");
    expect(JSON.stringify(lines[0])).not.toContain(token);
  });

  it("a payer whose earlier deposit is still pending is shown its account on a new link, until it is decided", async () => {
    const provider = (
      await server.admin("POST", "/admin/v1/providers", { name: "Cancels later", auto_cancel_minutes: 120 })
    ).json;
    const merchant = await createFirm(server, { provider_id: provider.id, answer_payment_code: true });
    const openFor = async (userId: string) => {
      const body = depositBody({ redirect: true, amount: undefined, user_id: userId });
      const res = await send(server, merchant, { path: "/paymentapi/v1/deposits", body });
      return (res.json.payment_url as string).split("/").pop() as string;
    };
    const direct = depositBody({ amount: "350.00" });
    const made = await send(server, merchant, { path: "/paymentapi/v1/deposits", body: direct });
    expect(made.status).toBe(200);
    const q = await send(server, merchant, {
      path: `/paymentapi/v1/transactions/by-reference/${direct.reference}`,
    });
    const earlier = q.json.data;

    const token = await openFor(direct.user_id as string);
    const state = await page("GET", `/api/pay/${token}`);
    expect(state.status).toBe(200);
    expect(state.json.status).toBe("open");
    // The earlier deposit's own account and amount, as an assigned page shows them, with its deadline;
    // nothing else of it (no reference, no payer's details).
    expect(state.text).toContain(
      `"earlier_deposit":{"bank_name":${JSON.stringify(earlier.assigned_bank_name)},"holder_name":${JSON.stringify(
        earlier.assigned_holder_name,
      )},"iban":"${earlier.assigned_iban}","amount":350.00,"payment_code":"${earlier.payment_code}","pay_by":"${new Date(
        Date.parse(earlier.created_at) + 120 * 60_000,
      ).toISOString()}"}`,
    );
    expect(state.text).not.toContain(direct.reference as string);
    expect(state.text).not.toContain("12345678901");
    // A submit is refused as before (the contract's text), and creates nothing.
    const refused = await page("POST", `/api/pay/${token}/deposit`, { amount: "100.00" });
    expect(refused.status).toBe(409);
    expect(refused.json).toEqual({
      success: false,
      code: "pending_exists",
      message: "Halihazirda bekleyen talebiniz var",
    });

    // Another payer of the same firm, and the same user id at another firm, see no earlier deposit.
    const stranger = await page("GET", `/api/pay/${await openFor("someone-else")}`);
    expect(stranger.json).not.toHaveProperty("earlier_deposit");
    const elsewhere = await open({ user_id: direct.user_id });
    expect((await page("GET", `/api/pay/${elsewhere.token}`)).json).not.toHaveProperty("earlier_deposit");
    // A pending withdrawal is no earlier deposit.
    const payout = await send(server, merchant, {
      path: "/paymentapi/v1/withdrawals",
      body: withdrawalBody({ user_id: "pays-out" }),
    });
    expect(payout.status).toBe(200);
    expect((await page("GET", `/api/pay/${await openFor("pays-out")}`)).json).not.toHaveProperty(
      "earlier_deposit",
    );

    // Decided: the link takes an amount like any other, and shows its own account.
    await server.admin("POST", `/admin/v1/transactions/${earlier.id}/approve`, { actor: "operator:t" });
    const after = await page("GET", `/api/pay/${token}`);
    expect(after.json.status).toBe("open");
    expect(after.json).not.toHaveProperty("earlier_deposit");
    const ok = await page("POST", `/api/pay/${token}/deposit`, { amount: "100.00" });
    expect(ok.json).toMatchObject({ status: "assigned", amount: 100 });
  });

  it("two submissions at the same moment (two clicks, two tabs) create one transaction and show one account", async () => {
    const { token, body } = await open();
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_v, i) =>
        page("POST", `/api/pay/${token}/deposit`, { amount: `${100 + i}.00` }),
      ),
    );
    for (const a of answers) expect(a.status, a.text).toBe(200);
    const amounts = new Set(answers.map((a) => a.json.amount));
    expect(amounts.size).toBe(1);
    const list = (await server.admin("GET", `/admin/v1/transactions?firm=${firm.id}&limit=1000`)).json;
    expect(list.filter((t: { reference: string }) => t.reference === body.reference)).toHaveLength(1);
  });

  it("an unused session expires after 30 minutes (injected clock); an assigned one once the transaction is decided", async () => {
    const unused = await open();
    const used = await open();
    await page("POST", `/api/pay/${used.token}/deposit`, { amount: "150.00" });
    server.clock.advance(29 * 60_000);
    expect((await page("GET", `/api/pay/${unused.token}`)).json.status).toBe("open");
    server.clock.advance(60_001);
    expect((await page("GET", `/api/pay/${unused.token}`)).json).toEqual({
      status: "expired",
      return_url: null,
    });
    const late = await page("POST", `/api/pay/${unused.token}/deposit`, { amount: "150.00" });
    expect(late.json).toEqual({ status: "expired", return_url: null });
    expect((await byReference(unused.body.reference)).status).toBe(404);
    // The assigned one still shows its account while pending, past 30 minutes...
    expect((await page("GET", `/api/pay/${used.token}`)).json.status).toBe("assigned");
    const q = await byReference(used.body.reference);
    await server.admin("POST", `/admin/v1/transactions/${q.json.data.id}/approve`, { actor: "operator:t" });
    // ...and never again once the transaction is decided.
    const after = await page("GET", `/api/pay/${used.token}`);
    // The payer is told how it ended, and nothing more.
    expect(after.json).toEqual({ status: "expired", outcome: "approved", return_url: null });
    expect(after.text).not.toContain("TR33");
    // A rejected one (an operator, or auto-cancel) says so too.
    const refused = await open();
    await page("POST", `/api/pay/${refused.token}/deposit`, { amount: "150.00" });
    const r = await byReference(refused.body.reference);
    await server.admin("POST", `/admin/v1/transactions/${r.json.data.id}/reject`, { actor: "operator:t" });
    expect((await page("GET", `/api/pay/${refused.token}`)).json).toEqual({
      status: "expired",
      outcome: "rejected",
      return_url: null,
    });
  });

  it("rate limits each token: a burst past its limit gets 429 with Retry-After", async () => {
    const { token } = await open();
    // Sent at once, so that they fall in one window of the limit: sent one by one on a slow machine
    // they could straddle two windows (on PostgreSQL, fixed 2 s windows) and none pass the limit.
    // A burst that still straddles one is tried again.
    let limited: Awaited<ReturnType<typeof page>>[] = [];
    for (let attempt = 0; attempt < 3 && limited.length === 0; attempt++) {
      const answers = await Promise.all(Array.from({ length: 30 }, () => page("GET", `/api/pay/${token}`)));
      limited = answers.filter((a) => a.status === 429);
    }
    expect(limited.length).toBeGreaterThan(0);
    expect(limited[0]?.json).toEqual({
      success: false,
      code: "too_many_requests",
      message: "Too many requests",
    });
    expect(Number(limited[0]?.headers["retry-after"])).toBeGreaterThan(0);
  });

  it("a deactivated firm's open pages expire: nothing is created, the account is never shown", async () => {
    const other = await createFirm(server);
    const body = depositBody({ redirect: true, amount: undefined });
    const opened = await send(server, other, { path: "/paymentapi/v1/deposits", body });
    const token = (opened.json.payment_url as string).split("/").pop() as string;
    expect((await page("GET", `/api/pay/${token}`)).json.status).toBe("open");

    expect((await server.admin("PATCH", `/admin/v1/firms/${other.id}`, { active: false })).status).toBe(200);
    const seen = await page("GET", `/api/pay/${token}`);
    expect(seen.json).toEqual({ status: "expired", return_url: null });
    const submitted = await page("POST", `/api/pay/${token}/deposit`, { amount: "500.00" });
    expect(submitted.status).toBe(200);
    expect(submitted.json).toEqual({ status: "expired", return_url: null });
    expect(submitted.text).not.toContain("TR33");
    const rows = (await server.admin("GET", `/admin/v1/transactions?firm=${other.id}`)).json;
    expect(rows).toEqual([]);
  });

  it("many payers behind one address (a carrier's NAT): 80 polls at once over 20 pages all get through", async () => {
    const tokens = await Promise.all(Array.from({ length: 20 }, async () => (await open()).token));
    // The address's bucket is shared with this file's other requests: the server's clock moves past
    // the time a spent bucket takes to refill (a 2 s window on PostgreSQL), so the burst meets a full one.
    server.clock.advance(2_100);
    const answers = await Promise.all(
      Array.from({ length: 80 }, (_, i) => page("GET", `/api/pay/${tokens[i % tokens.length]}`)),
    );
    expect(answers.map((a) => a.status).filter((s) => s !== 200)).toEqual([]);
  });

  it("guessing tokens is limited per address: unknown tokens get 404, then 429 past the address's burst", async () => {
    // Sent at once so that they fall in one window of the limit (see the test above).
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 3 && !statuses.includes(429); attempt++) {
      const answers = await Promise.all(
        // Past the address's burst (50/s, bursts of 100; 100 per 2 s window on PostgreSQL).
        Array.from({ length: 150 }, (_, i) =>
          page("GET", `/api/pay/guess-${attempt}-${i}-${"x".repeat(20)}`),
        ),
      );
      statuses.push(...answers.map((a) => a.status));
    }
    // The address's bucket is shared with this file's other requests: some guesses get through, as 404.
    expect(statuses).toContain(404);
    expect(statuses).toContain(429);
    expect(statuses.every((s) => s === 404 || s === 429)).toBe(true);
  });

  it("serves the page with a strict CSP, no referrer and no caching; assets from itself only", async () => {
    const { token } = await open();
    const html = await page("GET", `/t/${token}`);
    expect(html.status).toBe(200);
    expect(html.headers["content-type"]).toContain("text/html");
    // The one stylesheet is in the page, allowed by its hash: no 'unsafe-inline', no other style.
    const styles = [...html.text.matchAll(/<style>([\s\S]*?)<\/style>/g)].map((m) => m[1] ?? "");
    expect(styles).toHaveLength(1);
    const hash = createHash("sha256")
      .update(styles[0] ?? "")
      .digest("base64");
    expect(html.headers["content-security-policy"]).toBe(
      `default-src 'none'; script-src 'self'; style-src 'sha256-${hash}'; connect-src 'self'; img-src 'self'; ` +
        "base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    );
    expect(html.text).not.toMatch(/rel="stylesheet"|\sstyle=/);
    expect(html.headers["cache-control"]).toBe("no-store");
    expect(html.headers["referrer-policy"]).toBe("no-referrer");
    expect(html.text).not.toMatch(/https?:\/\//);
    const js = await page("GET", "/t/assets/page.js");
    expect(js.status).toBe(200);
    expect(js.text).not.toMatch(/https?:\/\/(?!\/)/);
  });

  it("the page carries its session's status as the status endpoint answers it, in every state; null for an unknown link", async () => {
    addressLimitRefilled();
    const { token, body } = await open();
    const both = async () => {
      const html = await page("GET", `/t/${token}`);
      expect(html.headers["cache-control"]).toBe("no-store");
      // The token stays in the address: page.js reads it there.
      expect(html.text).not.toContain(token);
      return [embedded(html.text), (await page("GET", `/api/pay/${token}`)).json];
    };
    const [opened, openAnswer] = await both();
    expect(opened).toMatchObject({ status: "open" });
    expect(opened).toEqual(openAnswer);
    await page("POST", `/api/pay/${token}/deposit`, { amount: "75.50" });
    const [assigned, assignedAnswer] = await both();
    expect(assigned).toMatchObject({ status: "assigned", amount: 75.5, reference: body.reference });
    expect(assigned).toEqual(assignedAnswer);
    const q = await byReference(body.reference);
    await server.admin("POST", `/admin/v1/transactions/${q.json.data.id}/approve`, { actor: "operator:t" });
    const [closed, closedAnswer] = await both();
    expect(closed).toEqual({ status: "expired", outcome: "approved", return_url: null });
    expect(closed).toEqual(closedAnswer);
    for (const unknown of ["A".repeat(32), "x"]) {
      const html = await page("GET", `/t/${unknown}`);
      expect(html.status).toBe(200);
      expect(embedded(html.text)).toBeNull();
    }
    expect(server.logs.join("\n")).not.toContain(token);
  });

  it("text from outside cannot leave the page's status: a shop named '</script><script>…' stays text", async () => {
    addressLimitRefilled();
    const hostile = `</script><script>alert(1)</script><!-- & "x" </SCRIPT >`;
    const shop = await createFirm(server);
    expect(
      (await server.admin("PATCH", `/admin/v1/firms/${shop.id}`, { display_name: hostile })).status,
    ).toBe(200);
    const res = await send(server, shop, {
      path: "/paymentapi/v1/deposits",
      body: depositBody({ redirect: true, amount: undefined }),
    });
    const html = await page("GET", res.json.payment_url as string);
    expect(embedded(html.text)).toMatchObject({ status: "open", merchant_name: hostile });
    expect(html.text).not.toContain("<script>alert");
    expect(html.text).not.toMatch(/<!--\s*&/);
    // The page's own scripts and nothing more: the data block and the module.
    expect(html.text.match(/<script/gi)).toHaveLength(2);
  });

  it("past the rate limit the page is still sent, without its status (page.js then asks for it)", async () => {
    const { token } = await open();
    let bare: string[] = [];
    for (let attempt = 0; attempt < 3 && bare.length === 0; attempt++) {
      const answers = await Promise.all(Array.from({ length: 30 }, () => page("GET", `/t/${token}`)));
      expect(answers.map((a) => a.status)).toEqual(answers.map(() => 200));
      bare = answers.filter((a) => embedded(a.text) === undefined).map((a) => a.text);
    }
    expect(bare.length).toBeGreaterThan(0);
    expect(bare[0]).toContain('<script type="application/json" id="status"></script>');
  });

  it("the assigned answer names the merchant's reference and the deposit's time; the closed one never does", async () => {
    addressLimitRefilled();
    const { token, body } = await open();
    const before = server.clock.now();
    const ok = await page("POST", `/api/pay/${token}/deposit`, { amount: "90.00" });
    expect(ok.json.reference).toBe(body.reference);
    const at = Date.parse(ok.json.created_at);
    expect(at).toBeGreaterThanOrEqual(before);
    expect(at).toBeLessThanOrEqual(server.clock.now());
    const q = await byReference(body.reference);
    await server.admin("POST", `/admin/v1/transactions/${q.json.data.id}/approve`, { actor: "operator:t" });
    const closed = await page("GET", `/api/pay/${token}`);
    expect(closed.json).toEqual({ status: "expired", outcome: "approved", return_url: null });
    expect(closed.text).not.toContain(String(body.reference));
  });

  it("the page's files are compressed as the browser takes them, cached for good under their version; the HTML never", async () => {
    const { token } = await open();
    const get = async (path: string, encoding?: string) => {
      const res = await request(`${server.url}${path}`, {
        headers: encoding === undefined ? {} : { "accept-encoding": encoding },
      });
      return {
        status: res.statusCode,
        headers: res.headers,
        body: Buffer.from(await res.body.arrayBuffer()),
      };
    };
    const plain = await get(`/t/${token}`);
    expect(plain.headers["content-encoding"]).toBeUndefined();
    const html = plain.body.toString("utf8");
    const names = [...html.matchAll(/"\/t\/assets\/([\w-]+)\/([\w.-]+)"/g)];
    // The stylesheet is in the HTML; page.css is still served (for a page of the release before).
    expect(names.map((m) => m[2]).sort()).toEqual(["amount.js", "page-text.js", "page.js"]);
    const version = names[0]?.[1];
    expect(names.every((m) => m[1] === version)).toBe(true);

    const br = await get(`/t/${token}`, "gzip, deflate, br");
    expect(br.headers["content-encoding"]).toBe("br");
    expect(br.headers["cache-control"]).toBe("no-store");
    expect(br.headers.vary).toContain("accept-encoding");
    expect(brotliDecompressSync(br.body).toString("utf8")).toBe(html);
    expect(br.body.length).toBeLessThan(plain.body.length / 2);

    for (const name of ["page.js", "page-text.js", "amount.js", "page.css"]) {
      const path = `/t/assets/${version}/${name}`;
      const identity = await get(path);
      expect(identity.status, name).toBe(200);
      expect(identity.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
      const gz = await get(path, "gzip");
      expect(gz.headers["content-encoding"]).toBe("gzip");
      expect(gunzipSync(gz.body).equals(identity.body)).toBe(true);
      const brotli = await get(path, "br;q=1, gzip;q=0.5");
      expect(brotli.headers["content-encoding"]).toBe("br");
      expect(brotliDecompressSync(brotli.body).equals(identity.body)).toBe(true);
      // A coding refused by q=0 is not used.
      expect((await get(path, "br;q=0, gzip")).headers["content-encoding"]).toBe("gzip");
      expect((await get(path, "br;q=0")).headers["content-encoding"]).toBeUndefined();
    }
    // Another release's version (a page loaded just before a deploy) still loads, but is not kept.
    const other = await get("/t/assets/0123456789ab/page.js", "br");
    expect(other.status).toBe(200);
    expect(other.headers["cache-control"]).toBe("no-cache");
    expect((await get(`/t/assets/${version}/nothing.js`)).status).toBe(404);
    expect((await get(`/t/assets/${version}/..%2Fsessions.js`)).status).toBe(404);
  });

  it("the QR code of the page's address is an SVG of its own origin; a bare 404 for an unknown token", async () => {
    addressLimitRefilled();
    const { token } = await open();
    const qr = await page("GET", `/api/pay/${token}/qr.svg`);
    expect(qr.status).toBe(200);
    expect(qr.headers["content-type"]).toContain("image/svg+xml");
    expect(qr.headers["cache-control"]).toBe("no-store");
    expect(qr.text).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" viewBox="0 0 \d+ \d+"/);
    const unknown = await page("GET", `/api/pay/${"A".repeat(32)}/qr.svg`);
    expect(unknown.status).toBe(404);
    expect(unknown.text).toBe(NOT_FOUND);
  });
});

describe("hosted sessions behind a separate page host", () => {
  it("payment_url is absolute on PAYMENT_PAGE_URL", async () => {
    const server = await startTestServer("sqlite", {
      PAYMENT_PAGE_URL: "https://pay.example.com/",
      LOG_LEVEL: "warn",
    });
    try {
      await addAccount(server);
      const firm = await createFirm(server);
      const res = await send(server, firm, {
        path: "/paymentapi/v1/deposits",
        body: depositBody({ redirect: true, amount: undefined }),
      });
      expect(res.json.payment_url).toMatch(/^https:\/\/pay\.example\.com\/t\/[A-Za-z0-9_-]{32}$/);
    } finally {
      await server.close();
    }
  });
});

describe("hosted page and console behind a proxy", () => {
  it("counts IPv6 clients per /64: new addresses in one block share its limit, other blocks have their own", async () => {
    const server = await startTestServer("sqlite", { PAYINTAKE_TRUST_PROXY: "127.0.0.1", LOG_LEVEL: "warn" });
    try {
      const guess = (from: string, i: number) =>
        request(`${server.url}/api/pay/guess-${i}-${"y".repeat(20)}`, {
          headers: { "x-forwarded-for": from },
        }).then(async (r) => {
          await r.body.dump();
          return r.statusCode;
        });
      // One block, a new address for each request (found by review: each got a bucket of its own).
      // The clock stands still, so the bucket does not refill while a slow machine answers them.
      server.clock.frozenAtMs = Date.now();
      const oneBlock = await Promise.all(
        Array.from({ length: 150 }, (_, i) => guess(`2001:db8:7:7:${(i + 1).toString(16)}::1`, i)),
      );
      expect(oneBlock).toContain(429);
      // 150 blocks, one request each: none is limited.
      const blocks = await Promise.all(
        Array.from({ length: 150 }, (_, i) => guess(`2001:db8:${(i + 1).toString(16)}::1`, i)),
      );
      expect(new Set(blocks)).toEqual(new Set([404]));
    } finally {
      await server.close();
    }
  });

  it("the pages browsers load say Strict-Transport-Security when they came over https, not over plain http", async () => {
    const server = await startTestServer("sqlite", { PAYINTAKE_TRUST_PROXY: "127.0.0.1", LOG_LEVEL: "warn" });
    try {
      const hsts = async (path: string, proto?: string) => {
        const res = await request(`${server.url}${path}`, {
          headers: proto ? { "x-forwarded-proto": proto } : {},
        });
        await res.body.dump();
        return res.headers["strict-transport-security"];
      };
      for (const path of ["/ops", `/t/${"A".repeat(32)}`]) {
        expect(await hsts(path, "https"), path).toBe("max-age=31536000");
        expect(await hsts(path), path).toBeUndefined();
        expect(await hsts(path, "http"), path).toBeUndefined();
      }
    } finally {
      await server.close();
    }
  });
});
