import { get as httpGet } from "node:http";
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signRequest } from "../../src/crypto/signature.js";
import { STORES, startTestServer, type TestServer } from "../support/harness.js";
import {
  type Answer,
  addAccount,
  createFirm,
  depositBody,
  newNonce,
  send,
  type TestFirm,
  withdrawalBody,
} from "../support/merchant.js";

const BY_ID = "/paymentapi/v1/transactions/";
const BY_REF = "/paymentapi/v1/transactions/by-reference/";
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?Z$/;

const BANK = "Ziraat Bankası";
const HOLDER = "Ödeme Hizmetleri A.Ş.";
const ACCOUNT_IBAN = "TR330006100519786457841326";

const NOT_FOUND = '{"success":false,"message":"transaction not found"}';
const INVALID_ID = '{"success":false,"message":"invalid id"}';

/** Every key the contract's Transaction resource may carry. */
const CONTRACT_KEYS = new Set([
  "id",
  "reference",
  "type",
  "status",
  "amount",
  "method",
  "first_name",
  "last_name",
  "middle_name",
  "username",
  "user_id",
  "national_id",
  "bank_code",
  "assigned_bank_name",
  "assigned_holder_name",
  "assigned_iban",
  "iban",
  "created_at",
  "updated_at",
]);

const INTERNAL_KEYS = [
  "firm_id",
  "merchant_id",
  "callback_url",
  "processed_by",
  "handling_by",
  "amount_edited_by",
  "original_amount",
  "account_id",
  "national_id_sealed",
  "national_id_masked",
  "iban_valid",
];

const q = (s: string) => JSON.stringify(s);

describe.each(STORES)("transaction queries on %s", (kind) => {
  let server: TestServer;
  let firm: TestFirm;
  let other: TestFirm;

  beforeAll(async () => {
    server = await startTestServer(kind);
    // Unbounded in pending amount: one of its deposits is the largest amount there is, above the
    // default bound of a firm's pending deposits (2,000,000.00 TL, ADR 0013).
    firm = await createFirm(server, { max_pending_amount: null });
    other = await createFirm(server);
    await addAccount(server);
  });
  afterAll(() => server?.close());

  const get = (f: TestFirm, path: string): Promise<Answer> => send(server, f, { method: "GET", path });

  async function deposit(f: TestFirm, overrides: Record<string, unknown> = {}) {
    const body = depositBody(overrides);
    const res = await send(server, f, { path: "/paymentapi/v1/deposits", body });
    expect(res.status, res.text).toBe(200);
    return { body, ...(await idOf(f, body.reference as string)) };
  }

  async function withdrawal(f: TestFirm, overrides: Record<string, unknown> = {}) {
    const body = withdrawalBody(overrides);
    const res = await send(server, f, { path: "/paymentapi/v1/withdrawals", body });
    expect(res.status, res.text).toBe(200);
    return { body, ...(await idOf(f, body.reference as string)) };
  }

  /** The id as the operator sees it (independent of the merchant query under test). */
  async function idOf(f: TestFirm, reference: string): Promise<{ id: number }> {
    const res = await server.admin("GET", `/admin/v1/transactions?firm=${f.id}`);
    const row = (res.json as any[]).find((t) => t.reference === reference);
    expect(row, `operator sees ${reference}`).toBeDefined();
    return { id: row.id };
  }

  function byRefPath(reference: string) {
    return BY_REF + encodeURIComponent(reference);
  }

  function expectNoInternalFields(text: string, data: Record<string, unknown>) {
    for (const key of INTERNAL_KEYS) {
      expect(data, `internal key ${key}`).not.toHaveProperty(key);
      expect(text).not.toContain(`"${key}"`);
    }
    for (const key of Object.keys(data)) {
      expect(key.startsWith("decision_note")).toBe(false);
      expect(key.startsWith("refund_")).toBe(false);
      expect(CONTRACT_KEYS.has(key), `unexpected key ${key}`).toBe(true);
    }
  }

  describe("deposit view", () => {
    it("by id answers the exact raw JSON of the contract", async () => {
      const { body, id } = await deposit(firm, { amount: "150", method: "eft" });
      const res = await get(firm, `${BY_ID}${id}`);
      expect(res.status).toBe(200);
      expect(String(res.headers["content-type"])).toMatch(/^application\/json/);
      const { created_at, updated_at } = res.json.data;
      expect(created_at).toMatch(ISO_UTC);
      expect(updated_at).toMatch(ISO_UTC);
      expect(res.text).toBe(
        `{"success":true,"status":"pending","data":{"id":${id},"reference":${q(body.reference as string)},` +
          `"type":"deposit","status":"pending","amount":150.00,"method":"eft",` +
          `"first_name":"Ayşe","last_name":"Yılmaz","username":"ayse.yilmaz@example.com",` +
          `"user_id":${q(body.user_id as string)},"national_id":"12***01","bank_code":"AKBANK",` +
          `"assigned_bank_name":${q(BANK)},"assigned_holder_name":${q(HOLDER)},"assigned_iban":"${ACCOUNT_IBAN}",` +
          `"created_at":${q(created_at)},"updated_at":${q(updated_at)}}}`,
      );
    });

    it("includes assigned_* and no iban; no internal field", async () => {
      const { id } = await deposit(firm);
      const res = await get(firm, `${BY_ID}${id}`);
      const data = res.json.data;
      expect(data.assigned_bank_name).toBe(BANK);
      expect(data.assigned_holder_name).toBe(HOLDER);
      expect(data.assigned_iban).toBe(ACCOUNT_IBAN);
      expect(data).not.toHaveProperty("iban");
      expect(res.text).not.toContain('"iban"');
      expectNoInternalFields(res.text, data);
      expect(Object.keys(res.json).sort()).toEqual(["data", "status", "success"]);
    });

    it("an empty method is stored as fast", async () => {
      const { id } = await deposit(firm, { method: "" });
      const res = await get(firm, `${BY_ID}${id}`);
      expect(res.json.data.method).toBe("fast");
    });

    it("created_at and updated_at are ISO 8601 UTC with Z and close to now", async () => {
      const before = Date.now();
      const { id } = await deposit(firm);
      const after = Date.now();
      const res = await get(firm, `${BY_ID}${id}`);
      for (const key of ["created_at", "updated_at"]) {
        const v = res.json.data[key] as string;
        expect(v).toMatch(ISO_UTC);
        const t = Date.parse(v);
        expect(t).toBeGreaterThanOrEqual(before - 1000);
        expect(t).toBeLessThanOrEqual(after + 1000);
      }
    });
  });

  describe("withdrawal view", () => {
    it("by id answers the exact raw JSON of the contract", async () => {
      const { body, id } = await withdrawal(firm, { amount: "250.5", national_id: "98765432109" });
      const res = await get(firm, `${BY_ID}${id}`);
      expect(res.status).toBe(200);
      const { created_at, updated_at } = res.json.data;
      expect(created_at).toMatch(ISO_UTC);
      expect(updated_at).toMatch(ISO_UTC);
      expect(res.text).toBe(
        `{"success":true,"status":"pending","data":{"id":${id},"reference":${q(body.reference as string)},` +
          `"type":"withdrawal","status":"pending","amount":250.50,"method":"fast",` +
          `"first_name":"Mehmet","last_name":"Öztürk","username":"+905551112233",` +
          `"user_id":${q(body.user_id as string)},"national_id":"98***09","bank_code":"GARANTI",` +
          `"iban":"TR330006100519786457841326",` +
          `"created_at":${q(created_at)},"updated_at":${q(updated_at)}}}`,
      );
    });

    it("includes iban and no assigned_*; no internal field", async () => {
      const { id } = await withdrawal(firm, { iban: "abc" });
      const res = await get(firm, `${BY_ID}${id}`);
      const data = res.json.data;
      expect(data.type).toBe("withdrawal");
      expect(data.iban).toBe("abc");
      expect(res.text).not.toContain("assigned_");
      expectNoInternalFields(res.text, data);
    });

    it("carries the method sent with it; anything that is not one reads as fast, never a 400", async () => {
      const eft = await withdrawal(firm, { method: "EFT" });
      expect((await get(firm, `${BY_ID}${eft.id}`)).json.data.method).toBe("eft");
      const odd = await withdrawal(firm, { method: "swift" });
      expect((await get(firm, `${BY_ID}${odd.id}`)).json.data.method).toBe("fast");
    });
  });

  describe("amount is a JSON number with exactly 2 decimals in the raw text", () => {
    it.each([
      ["150", "150.00"],
      ["150.00", "150.00"],
      ["1234.5", "1234.50"],
      ["1234.50", "1234.50"],
      ["0.01", "0.01"],
      ["0.10", "0.10"],
      ["007.5", "7.50"],
      ["999999999.99", "999999999.99"],
    ])("deposit amount %s reads %s", async (amount, written) => {
      const { id } = await deposit(firm, { amount });
      const res = await get(firm, `${BY_ID}${id}`);
      expect(res.text).toContain(`"amount":${written},`);
      expect(res.json.data.amount).toBe(Number(written));
    });

    it("a withdrawal amount reads with 2 decimals too", async () => {
      const { id } = await withdrawal(firm, { amount: "0.01" });
      const res = await get(firm, `${BY_ID}${id}`);
      expect(res.text).toContain('"amount":0.01,');
    });
  });

  describe("national_id masking", () => {
    it.each([
      ["12345678901", "12***01"],
      ["123456", "12***56"],
      ["12345", "***"],
      ["1", "***"],
    ])("%s is shown as %s", async (nationalId, masked) => {
      const { id } = await deposit(firm, { national_id: nationalId });
      const res = await get(firm, `${BY_ID}${id}`);
      expect(res.json.data.national_id).toBe(masked);
      expect(res.text).not.toContain(nationalId.length >= 6 ? nationalId : `"national_id":"${nationalId}"`);
    });

    it.each([
      ["absent", undefined],
      ["empty", ""],
      ["JSON null", null],
    ])("none sent (%s) is shown as ***, as a short one", async (_label, nationalId) => {
      const { id } = await deposit(firm, { national_id: nationalId });
      const res = await get(firm, `${BY_ID}${id}`);
      expect(res.text).toContain('"national_id":"***",');
    });
  });

  describe("middle_name", () => {
    it("a valid middle name is trimmed and shown", async () => {
      const { id } = await deposit(firm, { middle_name: "  Can  " });
      const res = await get(firm, `${BY_ID}${id}`);
      expect(res.json.data.middle_name).toBe("Can");
      expect(res.text).toContain('"last_name":"Yılmaz","middle_name":"Can",');
    });

    it("a valid middle name on a withdrawal is shown", async () => {
      const { id } = await withdrawal(firm, { middle_name: "Ali Rıza" });
      const res = await get(firm, `${BY_ID}${id}`);
      expect(res.json.data.middle_name).toBe("Ali Rıza");
    });

    it.each([
      ["yok", "yok"],
      ["placeholder in other case", "NULL"],
      ["undefined", "Undefined"],
      ["none", "  none "],
      ["whitespace only", "   "],
      ["empty", ""],
      ["JSON null", null],
      ["digits", "123"],
      ["no letters", "-.-"],
      ["too long", "a".repeat(51)],
      ["markup", "<b>Can</b>"],
    ])("%s: the key is absent", async (_label, middle) => {
      const { id } = await deposit(firm, { middle_name: middle });
      const res = await get(firm, `${BY_ID}${id}`);
      expect(res.status).toBe(200);
      expect(res.json.data).not.toHaveProperty("middle_name");
      expect(res.text).not.toContain("middle_name");
    });

    it("not sent: the key is absent", async () => {
      const { id } = await deposit(firm);
      const res = await get(firm, `${BY_ID}${id}`);
      expect(res.text).not.toContain("middle_name");
    });
  });

  describe("by reference", () => {
    it("finds the same transaction as by id, byte for byte", async () => {
      const { body, id } = await deposit(firm);
      const byId = await get(firm, `${BY_ID}${id}`);
      const byRef = await get(firm, byRefPath(body.reference as string));
      expect(byRef.status).toBe(200);
      expect(byRef.json.data.id).toBe(id);
      expect(byRef.text).toBe(byId.text);
    });

    it("finds a withdrawal by reference", async () => {
      const { body, id } = await withdrawal(firm);
      const res = await get(firm, byRefPath(body.reference as string));
      expect(res.status).toBe(200);
      expect(res.json.data.id).toBe(id);
      expect(res.json.data.type).toBe("withdrawal");
    });

    it.each([
      ["spaces", "ORD 2026 11 22"],
      ["unicode", "SİPARİŞ-ğüşöç-№7-€"],
      ["emoji", "ref-🙂-x"],
      ["slash", "ORD/2026/0001"],
      ["percent, plus, question mark and hash", "a%b+c?d#e&f=g"],
      ["by-reference lookalike", "by-reference"],
    ])("a reference with %s works percent-encoded in the signed path", async (_label, reference) => {
      const { id } = await deposit(firm, { reference });
      const path = byRefPath(reference);
      const res = await get(firm, path);
      expect(res.status, res.text).toBe(200);
      expect(res.json.data.reference).toBe(reference);
      expect(res.json.data.id).toBe(id);
      const byId = await get(firm, `${BY_ID}${id}`);
      expect(res.text).toBe(byId.text);
    });

    it("a by-reference miss is 404 transaction not found", async () => {
      const res = await get(firm, byRefPath(`missing-${Date.now()}`));
      expect(res.status).toBe(404);
      expect(res.text).toBe(NOT_FOUND);
    });

    // No reference can hold them (creation refuses control characters and lone surrogates, and
    // more than 100 characters), so each is a miss; PostgreSQL text cannot even hold NUL: it was a 500.
    it.each([
      ["NUL", "ORD-\u0000-1"],
      ["another control character", "ORD-\u0001-1"],
      ["a trailing newline", "ORD-1\n"],
      ["101 characters", "R".repeat(101)],
    ])("a reference with %s is 404 transaction not found", async (_label, reference) => {
      const res = await get(firm, byRefPath(reference));
      expect(res.status, res.text).toBe(404);
      expect(res.text).toBe(NOT_FOUND);
    });

    it("reference matching is exact (case and whitespace)", async () => {
      const { body } = await deposit(firm, { reference: `Exact-${Date.now()}` });
      const ref = body.reference as string;
      expect((await get(firm, byRefPath(ref.toLowerCase()))).status).toBe(404);
      expect((await get(firm, byRefPath(`${ref} `))).status).toBe(404);
      expect((await get(firm, byRefPath(ref))).status).toBe(200);
    });
  });

  describe("errors", () => {
    it.each(["abc", "1.5", "1e3", "0x10", "1a", " 1"])("id %j is 400 invalid id", async (raw) => {
      const res = await get(firm, `${BY_ID}${encodeURIComponent(raw)}`);
      expect(res.status).toBe(400);
      expect(res.text).toBe(INVALID_ID);
    });

    it.each(["999999999", "99999999999999999999", "0"])("unknown id %s is 404", async (raw) => {
      const res = await get(firm, `${BY_ID}${raw}`);
      expect(res.status).toBe(404);
      expect(res.text).toBe(NOT_FOUND);
    });

    it("another firm's transaction is 404 by id and by reference, never 403", async () => {
      const { body, id } = await deposit(firm);
      const byId = await get(other, `${BY_ID}${id}`);
      expect(byId.status).toBe(404);
      expect(byId.text).toBe(NOT_FOUND);
      const byRef = await get(other, byRefPath(body.reference as string));
      expect(byRef.status).toBe(404);
      expect(byRef.text).toBe(NOT_FOUND);
      // The owner still sees it.
      expect((await get(firm, `${BY_ID}${id}`)).status).toBe(200);
    });

    it("another firm's withdrawal is 404 too", async () => {
      const { body, id } = await withdrawal(other);
      expect((await get(firm, `${BY_ID}${id}`)).text).toBe(NOT_FOUND);
      expect((await get(firm, byRefPath(body.reference as string))).text).toBe(NOT_FOUND);
    });

    it("no answer may be stored by a cache: one keyed by URL would give another firm this firm's transaction", async () => {
      // A cache in front (a CDN rule, a proxy's cache) keys by URL, not by X-Api-Key: every firm
      // asks for /transactions/<id>, and only this one may see it.
      const { body, id } = await withdrawal(firm);
      const answers = [
        await get(firm, `${BY_ID}${id}`),
        await get(firm, byRefPath(body.reference as string)),
        await get(other, `${BY_ID}${id}`),
        await send(server, firm, { path: "/paymentapi/v1/deposits", body: depositBody() }),
      ];
      expect(answers.map((a) => [a.status, a.headers["cache-control"]])).toEqual([
        [200, "no-store"],
        [200, "no-store"],
        [404, "no-store"],
        [200, "no-store"],
      ]);
      // The admin API's too: its answers carry payers' details, secrets and one-time passwords.
      const listed = await request(`${server.url}/admin/v1/transactions?firm=${firm.id}`, {
        headers: { authorization: `Bearer ${server.adminToken}` },
      });
      await listed.body.text();
      expect([listed.statusCode, listed.headers["cache-control"]]).toEqual([200, "no-store"]);
    });

    it("two firms with one reference each see their own transaction", async () => {
      const reference = `SHARED-${Date.now()}`;
      const mine = await deposit(firm, { reference });
      const theirs = await deposit(other, { reference });
      expect(mine.id).not.toBe(theirs.id);
      expect((await get(firm, byRefPath(reference))).json.data.id).toBe(mine.id);
      expect((await get(other, byRefPath(reference))).json.data.id).toBe(theirs.id);
    });
  });

  describe("signing", () => {
    it("the query is signed with an empty body over the full versioned path", async () => {
      const { id } = await deposit(firm);
      const unversioned = await send(server, firm, {
        method: "GET",
        path: `${BY_ID}${id}`,
        signPath: `/transactions/${id}`,
      });
      expect(unversioned.status).toBe(401);
      expect(unversioned.json).toEqual({ success: false, message: "Invalid signature" });
      const withBody = await send(server, firm, {
        method: "GET",
        path: `${BY_ID}${id}`,
        signBody: "{}",
      });
      expect(withBody.status).toBe(401);
    });

    it("the percent-encoded path is what is signed, not the decoded one", async () => {
      const reference = `ORD ${Date.now()}/x`;
      await deposit(firm, { reference });
      const res = await send(server, firm, {
        method: "GET",
        path: byRefPath(reference),
        signPath: BY_REF + reference,
      });
      expect(res.status).toBe(401);
      expect(res.json.message).toBe("Invalid signature");
    });

    it("references '.' and '..': %2E in the path, signed as sent, finds them from a client that sends the path as written", async () => {
      const dot = await deposit(firm, { reference: "." });
      const dots = await deposit(firm, { reference: ".." });
      // node:http sends a `path` option byte for byte; fetch and undici (the WHATWG URL parser) would not.
      const asWritten = (path: string, signPath = path) =>
        new Promise<{ status: number; json: any }>((resolve, reject) => {
          const timestamp = String(Math.floor(server.clock.now() / 1000));
          const nonce = newNonce();
          const body = Buffer.alloc(0);
          const signature = signRequest(firm.secret, {
            method: "GET",
            path: signPath,
            body,
            timestamp,
            nonce,
          });
          const headers = {
            "x-api-key": firm.apiKey,
            "x-signature": signature,
            "x-timestamp": timestamp,
            "x-nonce": nonce,
          };
          const { hostname, port } = new URL(server.url);
          // A path option, not a URL: Node would parse a URL with the URL standard too.
          httpGet({ hostname, port, path, headers }, (res) => {
            let text = "";
            res.setEncoding("utf8");
            res.on("data", (chunk: string) => {
              text += chunk;
            });
            res.on("end", () => resolve({ status: res.statusCode ?? 0, json: JSON.parse(text) }));
          }).on("error", reject);
        });
      for (const [path, id] of [
        [`${BY_REF}%2E`, dot.id],
        [`${BY_REF}%2e`, dot.id],
        [`${BY_REF}%2E%2E`, dots.id],
        [`${BY_REF}.%2e`, dots.id],
        // Sent as written, the bare dots work too; most clients remove them before sending.
        [`${BY_REF}.`, dot.id],
        [`${BY_REF}..`, dots.id],
      ] as const) {
        const res = await asWritten(path);
        expect([res.status, res.json.data?.id], path).toEqual([200, id]);
      }
      // The path signed is the one sent, encoded; the decoded one is refused.
      expect((await asWritten(`${BY_REF}%2E`, `${BY_REF}.`)).json.message).toBe("Invalid signature");
      // Why the guides say so: the URL standard reads %2E as a dot and drops the segment.
      expect(new URL(`${server.url}${BY_REF}%2E`).pathname).toBe(BY_REF);
      expect(encodeURIComponent(".")).toBe(".");
    });

    it("the query string is not part of the signed path", async () => {
      const { id } = await deposit(firm);
      const res = await send(server, firm, {
        method: "GET",
        path: `${BY_ID}${id}?x=1`,
        signPath: `${BY_ID}${id}`,
      });
      expect(res.status).toBe(200);
      expect(res.json.data.id).toBe(id);
    });
  });
});
