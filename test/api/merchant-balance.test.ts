import fc from "fast-check";
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { turkeyDayOf } from "../../src/domain/turkey-time.js";
import { STORES, startTestServer, type TestServer } from "../support/harness.js";
import {
  addAccount,
  createFirm,
  depositBody,
  newNonce,
  send,
  type TestFirm,
  withdrawalBody,
} from "../support/merchant.js";

/**
 * A firm's own ledger figures through the signed merchant API (docs/api.md, "Balance"): the
 * operators' figures for the calling firm and no other, its day's movements shaped as gross, fee
 * and net with the transaction each belongs to, paged whole; bad input refused in the contract's
 * envelope; signed like every merchant request.
 */
describe.each(STORES)("a merchant's balance through the signed API (%s)", (kind) => {
  let server: TestServer;
  let firm: TestFirm;
  let other: TestFirm;
  let today: string;
  let account: { id: number; iban: string };
  const mine: { id: number; reference: string }[] = [];
  const theirs: { id: number; reference: string }[] = [];

  async function approved(
    who: TestFirm,
    path: "deposits" | "withdrawals",
    amount: string,
  ): Promise<{ id: number; reference: string }> {
    const body = path === "deposits" ? depositBody({ amount }) : withdrawalBody({ amount });
    expect((await send(server, who, { path: `/paymentapi/v1/${path}`, body })).status).toBe(200);
    const reference = body.reference as string;
    const q = await send(server, who, { path: `/paymentapi/v1/transactions/by-reference/${reference}` });
    const id = q.json.data.id as number;
    const res = await server.admin("POST", `/admin/v1/transactions/${id}/approve`, { actor: "cli:test" });
    expect(res.status).toBe(200);
    return { id, reference };
  }
  // A second apart, as a polite poller asks: the balance routes' own rate limit (5 a second, bursts
  // of 10; merchant-balance-limits.test.ts) never refuses these.
  const polite = (opts: Parameters<typeof send>[2], who = firm) => {
    server.clock.advance(1_000);
    return send(server, who, opts);
  };
  const balance = (who: TestFirm, query = "") =>
    polite({ path: `/paymentapi/v1/balance${query}`, signPath: "/paymentapi/v1/balance" }, who);
  const day = (who: TestFirm, date: string, query = "") => {
    const path = `/paymentapi/v1/balance/days/${date}`;
    return polite({ path: `${path}${query}`, signPath: path }, who);
  };

  beforeAll(async () => {
    server = await startTestServer(kind, { LOG_LEVEL: "warn" });
    account = await addAccount(server);
    firm = await createFirm(server, { webhook_url: "http://127.0.0.1:9/cb" });
    other = await createFirm(server, { webhook_url: "http://127.0.0.1:9/cb" });
    const set = await server.admin("PATCH", `/admin/v1/firms/${firm.id}`, {
      commission_deposit: "1.00",
      commission_withdrawal: "0+2.50",
    });
    expect(set.status).toBe(200);
    today = turkeyDayOf(server.clock.now());
    mine.push(await approved(firm, "deposits", "100.00"));
    theirs.push(await approved(other, "deposits", "70.00"));
    mine.push(await approved(firm, "deposits", "50.00"));
    mine.push(await approved(firm, "withdrawals", "20.00"));
    theirs.push(await approved(other, "withdrawals", "5.00"));
  });
  afterAll(async () => {
    await server?.close();
  });

  it("the balance is the admin API's, in TRY, as of now or of a moment asked", async () => {
    const res = await balance(firm);
    expect(res.status).toBe(200);
    const admin = (await server.admin("GET", `/admin/v1/ledger/firms/${firm.id}/balance`)).json;
    expect(res.json).toEqual({
      success: true,
      data: {
        balance: admin.balance,
        in_transit: admin.in_transit,
        available: admin.available,
        currency: "TRY",
        as_of: expect.any(String),
      },
    });
    expect(res.json.data).toMatchObject({ balance: "126.00", in_transit: "20.00", available: "126.00" });
    expect(Math.abs(Date.parse(res.json.data.as_of) - server.clock.now())).toBeLessThan(60_000);
    const theirBalance = await balance(other);
    expect(theirBalance.json.data).toMatchObject({ balance: "65.00", in_transit: "5.00" });

    server.clock.advance(1_000);
    const asOf = new Date(server.clock.now()).toISOString();
    const then = await balance(firm, `?at=${encodeURIComponent(asOf)}`);
    expect(then.status).toBe(200);
    expect(then.json.data).toMatchObject({ balance: "126.00", available: "126.00", as_of: asOf });
  });

  it("a day has firmDay's totals, signed as they moved the balance, and its movements as gross, fee and net", async () => {
    const res = await day(firm, today);
    expect(res.status).toBe(200);
    const admin = (await server.admin("GET", `/admin/v1/ledger/firms/${firm.id}/days/${today}`)).json;
    const { firm: _f, postings: _p, next: _n, ...totals } = admin;
    expect(res.json.success).toBe(true);
    expect(res.json.data).toMatchObject({ ...totals, currency: "TRY", next: null });
    expect(res.json.data).toMatchObject({
      date: today,
      opening: "0.00",
      deposits: "150.00",
      withdrawals: "-20.00",
      commissions: "-4.00",
      closing: "126.00",
      in_transit: { opening: "0.00", closing: "20.00" },
    });
    expect(res.json.data.movements).toEqual([
      movement("deposit", mine[0], "100.00", "1.00", "99.00"),
      movement("deposit", mine[1], "50.00", "0.50", "49.50"),
      movement("withdrawal_paid", mine[2], "-20.00", "2.50", "-22.50"),
    ]);
    const ids = res.json.data.movements.map((m: { id: number }) => m.id);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
  });

  it("shows nothing of another firm's, nor a posting's key, an account's key or the firm's own id", async () => {
    const res = await day(firm, today);
    for (const t of theirs) {
      expect(res.json.data.movements.map((m: { transaction_id: number }) => m.transaction_id)).not.toContain(
        t.id,
      );
      expect(res.text).not.toContain(t.reference);
    }
    for (const internal of ["deposit-approved", "withdrawal-paid", "cash:", "firm:", "TR33", "parts", "key"])
      expect(res.text).not.toContain(internal);
    expect(res.json.data).not.toHaveProperty("firm");
    expect((await balance(firm)).json.data).not.toHaveProperty("firm");
    const theirDay = await day(other, today);
    expect(theirDay.json.data.movements.map((m: { reference: string }) => m.reference)).toEqual(
      theirs.map((t) => t.reference),
    );
  });

  it("an adjustment and a settlement are movements of no transaction; the admin's reason and the bank account stay inside", async () => {
    const own = await createFirm(server, { webhook_url: "http://127.0.0.1:9/cb" });
    const base = `/admin/v1/ledger/firms/${own.id}`;
    const adjusted = await server.admin("POST", `${base}/adjustments`, {
      amount: "25.00",
      reason: "goodwill after the outage, ticket OPS-77",
      actor: "cli:test",
    });
    expect(adjusted.status, JSON.stringify(adjusted.json)).toBe(201);
    const settled = await server.admin("POST", `${base}/settlements`, {
      amount: "10.00",
      account_id: account.id,
      reference: "SET-0001",
      actor: "cli:test",
    });
    expect(settled.status, JSON.stringify(settled.json)).toBe(201);
    const res = await day(own, turkeyDayOf(server.clock.now()));
    expect(res.status).toBe(200);
    expect(res.json.data).toMatchObject({ adjustments: "25.00", settlements: "-10.00", closing: "15.00" });
    expect(
      res.json.data.movements.map((m: Record<string, unknown>) => [
        m.type,
        m.transaction_id,
        m.reference,
        m.amount,
        m.fee,
        m.net,
      ]),
    ).toEqual([
      ["adjustment", null, null, "25.00", "0.00", "25.00"],
      ["settlement", null, null, "-10.00", "0.00", "-10.00"],
    ]);
    for (const internal of ["OPS-77", "goodwill", "SET-0001", account.iban, "settlement:", "adjustment:"])
      expect(res.text).not.toContain(internal);
    expect((await balance(own)).json.data).toMatchObject({ balance: "15.00" });
  });

  it("pages a day's movements: each once, in order, the totals whole on every page", async () => {
    const whole = (await day(firm, today)).json.data;
    const paged: unknown[] = [];
    let next: string | null = null;
    do {
      const after: string = next === null ? "" : `&after=${encodeURIComponent(next)}`;
      const page = await day(firm, today, `?limit=1${after}`);
      expect(page.status).toBe(200);
      expect(page.json.data.movements).toHaveLength(1);
      expect(page.json.data.closing).toBe(whole.closing);
      paged.push(...page.json.data.movements);
      next = page.json.data.next;
    } while (next !== null);
    expect(paged).toEqual(whole.movements);
    expect((await day(firm, today, "?limit=500")).json.data.movements).toEqual(whole.movements);
  });

  it("refuses bad input in the contract's envelope, naming the parameter and its rule", async () => {
    const tomorrow = turkeyDayOf(server.clock.now() + 24 * 3_600_000);
    const later = new Date(server.clock.now() + 3_600_000).toISOString();
    const doc = (await (await request(`${server.url}/openapi.json`)).body.json()) as {
      paths: Record<string, { get: { responses: Record<string, { content: Record<string, any> }> } }>;
    };
    const documented = Object.entries(doc.paths)
      .filter(([path]) => path.startsWith("/paymentapi/v1/balance"))
      .flatMap(([, item]) =>
        Object.values(item.get.responses["400"]?.content["application/json"].examples ?? {}).map(
          (e) => (e as { value: { message: string } }).value.message,
        ),
      );
    const isDocumented = (message: string) =>
      documented.some((d) => d === message || (d.endsWith("<name>") && message.startsWith(d.slice(0, -6))));
    const cases: [() => Promise<{ status: number; json: unknown }>, string | RegExp][] = [
      [() => day(firm, "2026-02-30"), "Validation failed: date: not a day (YYYY-MM-DD)"],
      [() => day(firm, "yesterday"), "Validation failed: date: not a day (YYYY-MM-DD)"],
      [() => day(firm, tomorrow), /^Validation failed: date: a day still to come/],
      [() => day(firm, today, "?after=x"), "Validation failed: after: not a page's end this report gave"],
      [
        () => day(firm, today, "?after=1&after=2"),
        "Validation failed: after: not a page's end this report gave",
      ],
      [() => day(firm, today, "?limit=0"), "Validation failed: limit: a whole number from 1 to 500"],
      [() => day(firm, today, "?limit=501"), "Validation failed: limit: a whole number from 1 to 500"],
      [() => day(firm, today, "?limit=ten"), "Validation failed: limit: a whole number from 1 to 500"],
      [() => day(firm, today, "?page=2"), "Validation failed: unknown query parameter: page"],
      [() => balance(firm, "?from=2026-01-01"), "Validation failed: unknown query parameter: from"],
      [
        () => balance(firm, "?at=2026-12-01T10:00:00"),
        /^Validation failed: at: a moment in ISO 8601 with its offset/,
      ],
      [
        () => balance(firm, `?at=${encodeURIComponent(later)}`),
        /^Validation failed: at: a moment still to come/,
      ],
      [
        () => balance(firm, "?at=2001-01-01T00:00:00Z"),
        /^Validation failed: at: before the ledger's first posting/,
      ],
    ];
    for (const [ask, message] of cases) {
      const res = await ask();
      expect(res.status, String(message)).toBe(400);
      expect(Object.keys(res.json as object).sort()).toEqual(["message", "success"]);
      expect((res.json as { success: boolean }).success).toBe(false);
      expect((res.json as { message: string }).message).toMatch(message);
      // Every refusal met here is one the API reference lists for these routes.
      expect(isDocumented((res.json as { message: string }).message), String(message)).toBe(true);
    }
  });

  it("hostile dates and queries get 200 or a 4xx in the envelope, never a 5xx", async () => {
    const segment = fc.oneof(
      fc.string({ maxLength: 40 }),
      fc.date({ noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10)),
      fc.constantFrom("..", "%00", "0000-00-00", "9999-12-31", "2026-13-01", "２０２６-01-01", today),
    );
    const value = fc.oneof(fc.string({ maxLength: 30 }), fc.integer().map(String), fc.constant(""));
    const query = fc.dictionary(fc.constantFrom("at", "after", "limit", "x", "at[]"), value, { maxKeys: 3 });
    await fc.assert(
      fc.asyncProperty(segment, query, async (date, params) => {
        const q = new URLSearchParams(params).toString();
        for (const res of [
          await day(firm, encodeURIComponent(date), q ? `?${q}` : ""),
          await balance(firm, q ? `?${q}` : ""),
        ]) {
          if (res.status === 200) continue;
          expect(res.status, res.text).toBeGreaterThanOrEqual(400);
          expect(res.status, res.text).toBeLessThan(500);
          expect(Object.keys(res.json ?? {}).sort(), res.text).toEqual(["message", "success"]);
        }
      }),
      { numRuns: 60, seed: 20261207 },
    );
  });

  it("a test firm gets its figures too: all zero", async () => {
    const sandbox = await createFirm(server, { sandbox: true, webhook_url: "http://127.0.0.1:9/cb" });
    const bal = await balance(sandbox);
    expect(bal.json).toMatchObject({
      success: true,
      data: { balance: "0.00", in_transit: "0.00", available: "0.00", currency: "TRY" },
    });
    const res = await day(sandbox, today);
    expect(res.status).toBe(200);
    expect(res.json.data).toMatchObject({
      opening: "0.00",
      deposits: "0.00",
      closing: "0.00",
      in_transit: { opening: "0.00", closing: "0.00" },
      movements: [],
      next: null,
    });
  });

  it("is signed like every merchant request: the path without its query, the contract's 401s", async () => {
    const path = "/paymentapi/v1/balance";
    const refused = async (opts: Parameters<typeof send>[2], who = firm) => {
      const res = await polite(opts, who);
      return [res.status, res.json];
    };
    const envelope = (message: string) => [401, { success: false, message }];
    expect(await refused({ path, signSecret: "not-the-secret" })).toEqual(envelope("Invalid signature"));
    expect(await refused({ path: `${path}?at=${encodeURIComponent(new Date().toISOString())}` })).toEqual(
      envelope("Invalid signature"),
    );
    expect(await refused({ path, signPath: "/balance" })).toEqual(envelope("Invalid signature"));
    expect(await refused({ path, headers: { "x-nonce": undefined } })).toEqual(
      envelope("Missing authentication headers"),
    );
    expect(await refused({ path, timestamp: "1000000000" })).toEqual(
      envelope("Request timestamp out of range"),
    );
    expect(await refused({ path }, { ...firm, apiKey: "pk_unknown" })).toEqual(envelope("Invalid API key"));
    const nonce = newNonce();
    expect((await polite({ path, nonce })).status).toBe(200);
    expect(await refused({ path, nonce })).toEqual(envelope("Nonce already used"));
    const dayPath = `/paymentapi/v1/balance/days/${today}`;
    expect(await refused({ path: dayPath, signSecret: "not-the-secret" })).toEqual(
      envelope("Invalid signature"),
    );
    // Another firm's key with this firm's secret: nobody's signature.
    expect(await refused({ path, signSecret: firm.secret }, { ...other, secret: firm.secret })).toEqual(
      envelope("Invalid signature"),
    );
  });
});

function movement(
  type: string,
  tx: { id: number; reference: string } | undefined,
  amount: string,
  fee: string,
  net: string,
) {
  return {
    id: expect.any(Number),
    type,
    transaction_id: tx?.id,
    reference: tx?.reference,
    amount,
    fee,
    net,
    at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
  };
}
