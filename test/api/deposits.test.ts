import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseConfig } from "../../src/config/config.js";
import { startServer } from "../../src/main/server.js";
import { STORES, startTestServer, storeEnv, type TestServer } from "../support/harness.js";
import { addAccount, createFirm, depositBody, send, type TestFirm } from "../support/merchant.js";

/** What an operator is told to do about a refused URL (the admin API; the merchant API's text is the contract's). */
const HINT =
  ": it must be http or https to a public address; a server started with PAYINTAKE_ALLOW_PRIVATE_CALLBACKS=true also takes private and local ones (for development)";

const DEPOSITS = "/paymentapi/v1/deposits";

describe.each(STORES)("POST /paymentapi/v1/deposits on %s", (kind) => {
  let server: TestServer;
  let firm: TestFirm;
  let legacy: TestFirm;

  beforeAll(async () => {
    server = await startTestServer(kind);
    firm = await createFirm(server);
    legacy = await createFirm(server, { legacy_http: true });
    await addAccount(server, { min: "1", max: "100000" });
  });
  afterAll(() => server?.close());

  const deposit = (body: unknown, f = firm, headers?: Record<string, string | undefined>) =>
    send(server, f, { path: DEPOSITS, body, headers });

  async function count(f: TestFirm = firm): Promise<number> {
    return (await server.admin("GET", `/admin/v1/transactions?firm=${f.id}`)).json.length;
  }

  it("creates a direct deposit and answers exactly the contract's success body", async () => {
    const res = await deposit(depositBody());
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toMatch(/^application\/json/);
    expect(res.text).toBe(
      '{"success":true,"message":"Yatırım talebiniz alındı","assigned_bank_name":"Ziraat Bankası","assigned_holder_name":"Ödeme Hizmetleri A.Ş.","assigned_iban":"TR330006100519786457841326"}',
    );
  });

  it("stores the deposit pending, with method fast by default and amount in minor units", async () => {
    const body = depositBody({ amount: "1234.5", method: "" });
    expect((await deposit(body)).status).toBe(200);
    const list = (await server.admin("GET", `/admin/v1/transactions?firm=${firm.id}`)).json;
    const tx = list.find((t: { reference: string }) => t.reference === body.reference);
    expect(tx).toMatchObject({ status: "pending", type: "deposit", amount: "1234.50", method: "fast" });
    expect(tx.callback_url).toBe("http://127.0.0.1:9/callbacks");
  });

  it.each(["fast", "eft", "havale"])("accepts method %s", async (method) => {
    expect((await deposit(depositBody({ method }))).status).toBe(200);
  });

  describe("business rejections, in the order decisions.md fixes", () => {
    it("duplicate reference: 409, and a retry always gets it whatever changed since", async () => {
      const body = depositBody();
      expect((await deposit(body)).status).toBe(200);
      const again = await deposit({ ...body, user_id: "someone-else", amount: "999999.00" });
      expect(again.status).toBe(409);
      expect(again.text).toBe('{"success":false,"message":"Bu islem numarasi zaten kullanilmis"}');
    });

    it("pending request of the same user: 409", async () => {
      const first = depositBody();
      expect((await deposit(first)).status).toBe(200);
      const res = await deposit(depositBody({ user_id: first.user_id }));
      expect(res.status).toBe(409);
      expect(res.json).toEqual({ success: false, message: "Halihazirda bekleyen talebiniz var" });
    });

    it("deposits closed: 403, and open again takes effect", async () => {
      const f = await createFirm(server);
      await server.admin("PATCH", `/admin/v1/firms/${f.id}`, { deposits: "closed" });
      const res = await deposit(depositBody(), f);
      expect(res.status).toBe(403);
      expect(res.json).toEqual({ success: false, message: "Yatırım şu anda kapalı" });
      await server.admin("PATCH", `/admin/v1/firms/${f.id}`, { deposits: "open" });
      expect((await deposit(depositBody(), f)).status).toBe(200);
    });

    it("banned user: 403, scoped to the firm", async () => {
      const body = depositBody();
      await server.admin("PUT", `/admin/v1/firms/${firm.id}/bans`, { user_id: body.user_id });
      const res = await deposit(body);
      expect(res.status).toBe(403);
      expect(res.json).toEqual({ success: false, message: "Kullanıcı yasaklı" });
      expect((await deposit(depositBody({ user_id: body.user_id }), legacy)).json.success).toBe(true);
      await server.admin("DELETE", `/admin/v1/firms/${firm.id}/bans`, { user_id: body.user_id });
      expect((await deposit(depositBody({ user_id: body.user_id }))).status).toBe(200);
    });

    it("amount outside the firm's limits: 403, bounds inclusive", async () => {
      const f = await createFirm(server, { deposit_min: "100", deposit_max: "5000.50" });
      for (const amount of ["99.99", "5000.51"]) {
        const res = await deposit(depositBody({ amount }), f);
        expect(res.status).toBe(403);
        expect(res.json).toEqual({ success: false, message: "Yatırım tutarı limit dışında" });
      }
      expect((await deposit(depositBody({ amount: "100" }), f)).status).toBe(200);
      expect((await deposit(depositBody({ amount: "5000.50" }), f)).status).toBe(200);
    });

    it("no account for the amount: 422", async () => {
      const res = await deposit(depositBody({ amount: "100000.01" }));
      expect(res.status).toBe(422);
      expect(res.text).toBe('{"success":false,"message":"Bu tutar icin uygun hesap yok"}');
    });

    it("checks the duplicate reference before closed, closed before banned, banned before limits, limits before pending", async () => {
      const f = await createFirm(server, { deposit_min: "10" });
      const body = depositBody();
      expect((await deposit(body, f)).status).toBe(200);
      await server.admin("PUT", `/admin/v1/firms/${f.id}/bans`, { user_id: body.user_id });
      await server.admin("PATCH", `/admin/v1/firms/${f.id}`, { deposits: "closed" });
      expect((await deposit(body, f)).json.message).toBe("Bu islem numarasi zaten kullanilmis");
      expect((await deposit(depositBody({ user_id: body.user_id, amount: "1" }), f)).json.message).toBe(
        "Yatırım şu anda kapalı",
      );
      await server.admin("PATCH", `/admin/v1/firms/${f.id}`, { deposits: "open" });
      expect((await deposit(depositBody({ user_id: body.user_id, amount: "1" }), f)).json.message).toBe(
        "Kullanıcı yasaklı",
      );
      await server.admin("DELETE", `/admin/v1/firms/${f.id}/bans`, { user_id: body.user_id });
      expect((await deposit(depositBody({ user_id: body.user_id, amount: "1" }), f)).json.message).toBe(
        "Yatırım tutarı limit dışında",
      );
      expect(
        (await deposit(depositBody({ user_id: body.user_id, amount: "100000.01" }), f)).json.message,
      ).toBe("Halihazirda bekleyen talebiniz var");
    });

    it("legacy mode answers every business rejection with HTTP 200 and success false", async () => {
      const body = depositBody();
      expect((await deposit(body, legacy)).status).toBe(200);
      const dup = await deposit(body, legacy);
      expect(dup.status).toBe(200);
      expect(dup.json).toEqual({ success: false, message: "Bu islem numarasi zaten kullanilmis" });
      const none = await deposit(depositBody({ amount: "100000.01" }), legacy);
      expect(none.status).toBe(200);
      expect(none.json).toEqual({ success: false, message: "Bu tutar icin uygun hesap yok" });
      const invalid = await deposit(depositBody({ bank_code: "" }), legacy);
      expect(invalid.status).toBe(400);
    });

    it("a rejected deposit writes nothing", async () => {
      const before = await count();
      await deposit(depositBody({ amount: "100000.01" }));
      await deposit(depositBody({ first_name: "X" }));
      expect(await count()).toBe(before);
    });
  });

  describe("validation", () => {
    const cases: [string, Record<string, unknown>, string][] = [
      [
        "amount absent",
        { amount: undefined },
        "Validation failed: Amount is required when Redirect is false",
      ],
      ["amount empty", { amount: "" }, "Validation failed: Amount is required when Redirect is false"],
      [
        "amount with redirect",
        { redirect: true },
        "Validation failed: Amount must not be sent when Redirect is true",
      ],
      ["amount as number", { amount: 150 }, "Validation failed: Amount must be a string"],
      ["amount with letters", { amount: "15O.00" }, "Validation failed: Amount must be a decimal number"],
      ["negative amount", { amount: "-5" }, "Validation failed: Amount must be greater than 0"],
      ["zero amount", { amount: "0.00" }, "Validation failed: Amount must be greater than 0"],
      ["three decimals", { amount: "1.005" }, "Validation failed: Amount must have at most 2 decimal places"],
      ["absurd amount", { amount: "1".repeat(40) }, "Validation failed: Amount must not exceed 999999999.99"],
      ["redirect as string", { redirect: "true" }, "Validation failed: Redirect must be a boolean"],
      ["bank_code missing", { bank_code: undefined }, "Validation failed: BankCode is required"],
      [
        "bank_code too long",
        { bank_code: "B".repeat(21) },
        "Validation failed: BankCode is too long (over 20 chars)",
      ],
      ["national_id as number", { national_id: 123 }, "Validation failed: NationalID must be a string"],
      [
        "first_name too short",
        { first_name: "A" },
        "Validation failed: FirstName is too short (under 2 chars)",
      ],
      [
        "first_name digits",
        { first_name: "Ali2" },
        "Validation failed: FirstName contains invalid characters",
      ],
      ["first_name array", { first_name: ["Ali"] }, "Validation failed: FirstName must be a string"],
      [
        "last_name too long",
        { last_name: "a".repeat(51) },
        "Validation failed: LastName is too long (over 50 chars)",
      ],
      ["username space", { username: "ali veli" }, "Validation failed: Username contains invalid characters"],
      [
        "username zero-width",
        { username: "ali\u200bveli" },
        "Validation failed: Username contains invalid characters",
      ],
      ["username angle", { username: "<script>" }, "Validation failed: Username contains invalid characters"],
      ["username too short", { username: "ab" }, "Validation failed: Username is too short (under 3 chars)"],
      ["user_id missing", { user_id: null }, "Validation failed: UserID is required"],
      [
        "user_id too long",
        { user_id: "u".repeat(51) },
        "Validation failed: UserID is too long (over 50 chars)",
      ],
      [
        "reference too long",
        { reference: "r".repeat(101) },
        "Validation failed: Reference is too long (over 100 chars)",
      ],
      [
        "reference NUL",
        { reference: "ab\u0000c" },
        "Validation failed: Reference contains invalid characters",
      ],
      [
        "reference right-to-left override",
        { reference: "ORD-\u202E1" },
        "Validation failed: Reference contains invalid characters",
      ],
      [
        "user_id line separator",
        { user_id: "U\u20281" },
        "Validation failed: UserID contains invalid characters",
      ],
      ["method unknown", { method: "swift" }, "Validation failed: Method must be one of fast, eft, havale"],
      [
        "return_url too long",
        { return_url: `https://x.com/${"a".repeat(500)}` },
        "Validation failed: ReturnURL is too long (over 500 chars)",
      ],
    ];
    it.each(cases)("%s", async (_name, override, message) => {
      const body = depositBody();
      for (const [k, v] of Object.entries(override)) {
        if (v === undefined) delete body[k];
        else body[k] = v;
      }
      const before = await count();
      const res = await deposit(body);
      expect(res.status).toBe(400);
      expect(res.json).toEqual({ success: false, message });
      expect(await count()).toBe(before);
    });

    it("bytes that are not UTF-8 are refused as invalid JSON, not stored as U+FFFD", async () => {
      // Decoded leniently, "R-\xFF" and "R-\xFE" were both stored as "R-\uFFFD": the second was
      // refused as a duplicate of a reference that was never sent.
      for (const bad of [[0xff], [0xfe], [0xc3], [0xed, 0xa0, 0x80], [0xc0, 0xaf]]) {
        const [head, tail] = JSON.stringify(depositBody({ reference: "R-BAD" })).split("BAD") as [
          string,
          string,
        ];
        const raw = Buffer.concat([Buffer.from(head), Buffer.from(bad), Buffer.from(tail)]);
        const before = await count();
        const res = await deposit(raw);
        expect([res.status, res.json], String(bad)).toEqual([
          400,
          { success: false, message: "Validation failed: request body is not valid JSON" },
        ]);
        expect(await count()).toBe(before);
      }
      // Latin-1 "José" is not "Jos\uFFFD" with a name rule's message: the body is not JSON.
      const latin1 = Buffer.from(JSON.stringify(depositBody({ first_name: "José" })), "latin1");
      expect((await deposit(latin1)).json.message).toBe("Validation failed: request body is not valid JSON");
    });

    it("a lone surrogate (a JSON escape) is refused like a control character, with the field's message", async () => {
      // On PostgreSQL "R-\ud800" was stored as "R-\ufffd": another reference than the one sent,
      // and the same one as "R-\ud801" (a duplicate); SQLite kept something else again.
      for (const [key, struct] of [
        ["reference", "Reference"],
        ["user_id", "UserID"],
        ["bank_code", "BankCode"],
        ["national_id", "NationalID"],
        ["first_name", "FirstName"],
        ["username", "Username"],
      ] as const) {
        for (const lone of ["\\ud800", "\\udc00x", "\\ud83d\\ud83d\\ude00"]) {
          const raw = JSON.stringify(depositBody({ [key]: "Ab-LONE" })).replace("LONE", lone);
          const before = await count();
          const res = await deposit(raw);
          expect([res.status, res.json], raw).toEqual([
            400,
            { success: false, message: `Validation failed: ${struct} contains invalid characters` },
          ]);
          expect(await count()).toBe(before);
        }
      }
      // A pair is one code point: stored and found as sent.
      const body = depositBody({ reference: "R-LONE" });
      const res = await deposit(JSON.stringify(body).replace("LONE", "\\ud83d\\ude00"));
      expect(res.status).toBe(200);
      const found = await send(server, firm, {
        path: `/paymentapi/v1/transactions/by-reference/${encodeURIComponent("R-\u{1F600}")}`,
      });
      expect(found.json.data.reference).toBe("R-\u{1F600}");
    });

    it("hosted mode: a return_url with a lone surrogate is 'return_url ayrıştırılamadı'", async () => {
      const body = depositBody({
        amount: undefined,
        redirect: true,
        return_url: "https://shop.example/LONE",
      });
      const res = await deposit(JSON.stringify(body).replace("LONE", "\\ud800"));
      expect(res.status).toBe(400);
      expect(res.text).toBe('{"success":false,"message":"return_url ayrıştırılamadı"}');
    });

    it("reports the first failing field in the contract's order", async () => {
      const res = await deposit(depositBody({ bank_code: "", username: "a b", reference: "" }));
      expect(res.json.message).toBe("Validation failed: BankCode is required");
    });

    it("ignores return_url in direct mode apart from its length", async () => {
      expect((await deposit(depositBody({ return_url: "ftp://not-checked" }))).status).toBe(200);
      // Control characters too, NUL included: the value is neither checked nor stored.
      for (const url of ["https://shop.example/back\n", "https://x.com/\u0000"])
        expect((await deposit(depositBody({ return_url: url }))).status, JSON.stringify(url)).toBe(200);
    });

    it("hosted mode: a return_url with control characters is 'return_url ayrıştırılamadı'", async () => {
      for (const url of ["https://shop.example/\tback", "https://shop.example/back\n"]) {
        const res = await deposit(depositBody({ amount: undefined, redirect: true, return_url: url }));
        expect(res.status).toBe(400);
        expect(res.text).toBe('{"success":false,"message":"return_url ayrıştırılamadı"}');
      }
    });

    it("a malformed Amount is reported before a malformed Redirect", async () => {
      const res = await deposit(depositBody({ amount: "abc", redirect: "yes" }));
      expect(res.status).toBe(400);
      expect(res.json.message).toBe("Validation failed: Amount must be a decimal number");
    });

    it("accepts Unicode names and e-mail or phone style usernames", async () => {
      for (const [first, last, username] of [
        ["Çağrı", "Öztürk-Şahin", "cagri+test@example.com.tr"],
        ["İlknur", "O'Brien", "+905551112233"],
        ["Jean-Luc", "St. John", "user#1_a.b-c"],
      ]) {
        const res = await deposit(depositBody({ first_name: first, last_name: last, username }));
        expect(res.status).toBe(200);
      }
    });

    it("never rejects for middle_name and stores only a valid one", async () => {
      for (const middle of [
        null,
        "",
        "   ",
        "yok",
        "NULL",
        "Undefined",
        "none",
        "-",
        "1234",
        "x".repeat(60),
        42,
        ["a"],
      ]) {
        const body = depositBody({ middle_name: middle });
        expect((await deposit(body)).status).toBe(200);
        const tx = (
          await send(server, firm, { path: `/paymentapi/v1/transactions/by-reference/${body.reference}` })
        ).json;
        expect(tx.data).not.toHaveProperty("middle_name");
      }
      const body = depositBody({ middle_name: "  Can Ali  " });
      expect((await deposit(body)).status).toBe(200);
      const tx = (
        await send(server, firm, { path: `/paymentapi/v1/transactions/by-reference/${body.reference}` })
      ).json;
      expect(tx.data.middle_name).toBe("Can Ali");
    });
  });

  describe("hosted mode validation (sessions: test/api/hosted.test.ts)", () => {
    it("accepts redirect true without amount: a payment_url, no assigned_* fields", async () => {
      const body = depositBody({ redirect: true, amount: "" });
      const res = await deposit(body);
      expect(res.status).toBe(200);
      expect(Object.keys(res.json)).toEqual(["success", "message", "payment_url"]);
      expect(res.json.payment_url).toMatch(/^\/t\/[A-Za-z0-9_-]{32}$/);
    });
    const urlCases: [string, string][] = [
      ["://bad", "return_url ayrıştırılamadı"],
      ["http://[::1", "return_url ayrıştırılamadı"],
      ["ftp://example.com/back", "return_url yalnız http veya https olabilir"],
      ["javascript:alert(1)", "return_url yalnız http veya https olabilir"],
      ["http://", "return_url bir sunucu adı içermeli"],
      ["https://user:pass@example.com/back", "return_url kullanıcı bilgisi (userinfo) içeremez"],
    ];
    it.each(urlCases)("return_url %s", async (url, message) => {
      const res = await deposit(depositBody({ redirect: true, amount: undefined, return_url: url }));
      expect(res.status).toBe(400);
      expect(res.text).toBe(JSON.stringify({ success: false, message }));
    });
  });

  describe("callback URL resolution", () => {
    it("accepts X-Callback-URL on the webhook's scheme, host and port with another path", async () => {
      const res = await deposit(depositBody(), firm, {
        "x-callback-url": "http://127.0.0.1:9/other/path?x=1",
      });
      expect(res.status).toBe(200);
    });

    it.each([
      "https://127.0.0.1:9/callbacks",
      "http://127.0.0.1:10/callbacks",
      "http://localhost:9/callbacks",
      "not a url",
    ])("refuses X-Callback-URL %s with 400", async (url) => {
      const before = await count();
      const res = await deposit(depositBody(), firm, { "x-callback-url": url });
      expect(res.status).toBe(400);
      expect(res.json).toEqual({
        success: false,
        message: "X-Callback-URL must match the firm's registered webhook host",
      });
      expect(await count()).toBe(before);
    });

    it("refuses X-Callback-URL when the firm has no webhook, and refuses when nothing resolves", async () => {
      const f = await createFirm(server, { webhook_url: null });
      const withHeader = await deposit(depositBody(), f, { "x-callback-url": "http://127.0.0.1:9/cb" });
      expect(withHeader.status).toBe(400);
      expect(withHeader.json.message).toBe("X-Callback-URL must match the firm's registered webhook host");
      const none = await deposit(depositBody(), f);
      expect(none.status).toBe(400);
      expect(none.json).toEqual({ success: false, message: "Callback URL not configured on provider" });
    });

    it("sends every result to a platform provider's central URL, ignoring header and webhook", async () => {
      const provider = await server.admin("POST", "/admin/v1/providers", {
        name: "Platform",
        kind: "platform",
        callback_url: "http://127.0.0.1:7/central",
      });
      expect(provider.status).toBe(201);
      const f = await createFirm(server, { webhook_url: null, provider_id: provider.json.id });
      const body = depositBody();
      const res = await deposit(body, f, { "x-callback-url": "http://elsewhere.example/cb" });
      expect(res.status).toBe(200);
      const list = (await server.admin("GET", `/admin/v1/transactions?firm=${f.id}`)).json;
      expect(list[0].callback_url).toBe("http://127.0.0.1:7/central");
    });

    it("checks callback resolution before the body", async () => {
      const f = await createFirm(server, { webhook_url: null });
      const res = await send(server, f, { path: DEPOSITS, body: "{not json" });
      expect(res.json.message).toBe("Callback URL not configured on provider");
    });
  });

  describe("bad bodies get a clear 4xx, never a 500", () => {
    it.each([
      ["malformed JSON", '{"amount": '],
      ["empty body", ""],
      ["JSON array", "[1,2]"],
      ["JSON null", "null"],
      ["JSON string", '"hello"'],
      ["deep nesting", `${"[".repeat(5000)}${"]".repeat(5000)}`],
    ])("%s", async (_name, raw) => {
      const res = await send(server, firm, { path: DEPOSITS, body: raw });
      expect(res.status).toBe(400);
      expect(res.json.success).toBe(false);
      expect(res.json.message).toMatch(/^Validation failed: /);
    });

    it("answers 413 Request body too large over 64 KiB", async () => {
      const res = await send(server, firm, {
        path: DEPOSITS,
        body: depositBody({ pad: "x".repeat(70 * 1024) }),
      });
      expect(res.status).toBe(413);
      expect(res.json).toEqual({ success: false, message: "Request body too large" });
    });

    it("answers unknown paths and methods with a JSON 404", async () => {
      const nope = await send(server, firm, { path: "/paymentapi/v1/nope" });
      expect(nope.status).toBe(404);
      expect(nope.json).toEqual({ success: false, message: "Not found" });
      // Outside the merchant API a refusal carries its code.
      for (const path of ["/deposits", "/"]) {
        const res = await send(server, firm, { path });
        expect(res.status).toBe(404);
        expect(res.json).toEqual({ success: false, code: "not_found", message: "Not found" });
      }
    });

    it("takes the last value of a duplicate key, like the reference implementation's JSON decoder", async () => {
      const base = depositBody();
      const raw = JSON.stringify(base).replace('"amount":"150.00"', '"amount":"1.00","amount":"150.00"');
      expect((await send(server, firm, { path: DEPOSITS, body: raw })).status).toBe(200);
    });
  });

  it("rotates fairly between eligible accounts", async () => {
    const s = await startTestServer(kind);
    try {
      const f = await createFirm(s);
      const ids = [];
      for (const iban of [
        "TR470000000000000000000000",
        "TR200000000000000000000001",
        "TR900000000000000000000002",
      ])
        ids.push((await addAccount(s, { iban })).iban);
      const seen: string[] = [];
      for (let i = 0; i < 9; i++) {
        const res = await send(s, f, { path: DEPOSITS, body: depositBody() });
        seen.push(res.json.assigned_iban);
      }
      for (const iban of ids) expect(seen.filter((x) => x === iban)).toHaveLength(3);
      // An inactive account is skipped; one out of range too.
      // The three added here; the sandbox firms' account is never routed to for a live firm.
      const list = (await s.admin("GET", "/admin/v1/accounts")).json.filter(
        (a: { sandbox: boolean }) => !a.sandbox,
      );
      await s.admin("PATCH", `/admin/v1/accounts/${list[0].id}`, { active: false });
      await s.admin("PATCH", `/admin/v1/accounts/${list[1].id}`, { max: "100" });
      for (let i = 0; i < 3; i++) {
        const res = await send(s, f, { path: DEPOSITS, body: depositBody({ amount: "150.00" }) });
        expect(res.json.assigned_iban).toBe(list[2].iban);
      }
    } finally {
      await s.close();
    }
  });
});

describe.each(STORES)("callback targets on %s without private targets allowed", (kind) => {
  it("refuses private webhooks at registration and private resolved URLs at request time", async () => {
    const store = await storeEnv(kind);
    const env: Record<string, string> = { PORT: "0", LOG_LEVEL: "silent", ...store.env };
    try {
      // Registered while private targets were allowed (as in development)...
      let server = await startServer(parseConfig({ ...env, PAYINTAKE_ALLOW_PRIVATE_CALLBACKS: "true" }));
      const ts: TestServer = await adminOnly(server.url, env.PAYINTAKE_ADMIN_TOKEN as string);
      const firm = await createFirm(ts, { webhook_url: "http://127.0.0.1:9/cb" });
      await addAccount(ts);
      await server.close();
      // ...then the server runs with the production setting.
      server = await startServer(parseConfig(env));
      const strict = await adminOnly(server.url, env.PAYINTAKE_ADMIN_TOKEN as string);
      try {
        for (const url of [
          "http://127.0.0.1/cb",
          "http://127.1/cb",
          "http://0x7f000001/cb",
          "http://[::1]/cb",
          "http://[::ffff:127.0.0.1]/cb",
          "http://169.254.169.254/latest",
          "http://[2002:a9fe:a9fe::]/",
          "http://10.0.0.1/cb",
          "http://192.168.1.1/cb",
          "http://localhost/cb",
        ]) {
          const res = await strict.admin("POST", "/admin/v1/firms", { name: "x", webhook_url: url });
          expect(res.status, url).toBe(400);
          expect(res.json).toEqual({
            success: false,
            code: "url_not_allowed",
            message: `Callback URL is not allowed${HINT}`,
          });
        }
        const res = await send(strict, firm, { path: DEPOSITS, body: depositBody() });
        expect(res.status).toBe(400);
        expect(res.json).toEqual({ success: false, message: "Callback URL is not allowed" });

        // Payment channels' URLs follow the same rule (asks carry payers' names and IBANs).
        for (const [i, url] of [
          "https://127.0.0.1:9/ask",
          "https://169.254.169.254/",
          "https://[::ffff:10.0.0.1]/",
        ].entries()) {
          const ch = await strict.admin("POST", "/admin/v1/channels", {
            code: `PRIV${i}`,
            kind: "http",
            url,
          });
          expect(ch.status, url).toBe(400);
          expect(ch.json).toEqual({
            success: false,
            code: "url_not_allowed",
            message: `Channel URL is not allowed${HINT}`,
          });
        }
        const ok = await strict.admin("POST", "/admin/v1/channels", {
          code: "PUB",
          kind: "http",
          url: "https://93.184.215.14/ask",
        });
        expect(ok.status).toBe(201);
        const moved = await strict.admin("PATCH", "/admin/v1/channels/PUB", { url: "https://10.0.0.1/ask" });
        expect(moved.status).toBe(400);
        expect(moved.json).toEqual({
          success: false,
          code: "url_not_allowed",
          message: `Channel URL is not allowed${HINT}`,
        });
        // Public but plain http: refused too, asks would cross the internet unencrypted.
        for (const url of ["http://93.184.215.14/ask", "HTTP://93.184.215.14/ask"]) {
          const plain = await strict.admin("PATCH", "/admin/v1/channels/PUB", { url });
          expect(plain.status, url).toBe(400);
          expect(plain.json.message).toBe("Channel URL must use https (asks carry payers' names and IBANs)");
        }
        const plainNew = await strict.admin("POST", "/admin/v1/channels", {
          code: "PLAIN",
          kind: "http",
          url: "http://93.184.215.14/ask",
        });
        expect(plainNew.status).toBe(400);
      } finally {
        await server.close();
      }
    } finally {
      await store.cleanup();
    }
  });
});

async function adminOnly(url: string, token: string): Promise<TestServer> {
  const { TestClock } = await import("../support/harness.js");
  const { request } = await import("undici");
  return {
    kind: "sqlite",
    url,
    adminToken: token,
    clock: new TestClock(),
    env: {},
    logs: [],
    async admin(method, path, body) {
      const res = await request(`${url}${path}`, {
        method: method as "GET",
        headers: {
          authorization: `Bearer ${token}`,
          ...(body === undefined ? {} : { "content-type": "application/json" }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: res.statusCode, json: await res.body.json() };
    },
    close: async () => {},
  };
}
