import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { STORES, startTestServer, type TestServer } from "../support/harness.js";
import {
  type Answer,
  addAccount,
  createFirm,
  depositBody,
  send,
  type TestFirm,
  withdrawalBody,
} from "../support/merchant.js";

const PATH = "/paymentapi/v1/withdrawals";
const RECEIVED = '{"success":true,"message":"Çekim talebiniz alındı"}';
const VALID_IBAN = "TR330006100519786457841326";

const DUPLICATE = "Bu islem numarasi zaten kullanilmis";
const PENDING = "Halihazirda bekleyen talebiniz var";
const CLOSED = "Çekim şu anda kapalı";
const BANNED = "Kullanıcı yasaklı";

const envelope = (message: string) => JSON.stringify({ success: false, message });

describe.each(STORES)("POST /paymentapi/v1/withdrawals on %s", (kind) => {
  let server: TestServer;
  let firm: TestFirm;

  beforeAll(async () => {
    server = await startTestServer(kind);
    firm = await createFirm(server);
    await addAccount(server);
  });
  afterAll(() => server?.close());

  const withdraw = (f: TestFirm, body: unknown): Promise<Answer> => send(server, f, { path: PATH, body });

  async function operatorList(f: TestFirm): Promise<any[]> {
    const res = await server.admin("GET", `/admin/v1/transactions?firm=${f.id}`);
    expect(res.status).toBe(200);
    return res.json;
  }

  async function operatorTx(f: TestFirm, reference: string): Promise<any> {
    const list = await operatorList(f);
    const summary = list.find((t) => t.reference === reference);
    expect(summary, `transaction ${reference} should exist`).toBeDefined();
    const res = await server.admin("GET", `/admin/v1/transactions/${summary.id}`);
    expect(res.status).toBe(200);
    return res.json;
  }

  async function setWithdrawals(f: TestFirm, state: "open" | "closed") {
    const res = await server.admin("PATCH", `/admin/v1/firms/${f.id}`, { withdrawals: state });
    expect(res.status).toBe(200);
  }

  async function ban(f: TestFirm, userId: string) {
    const res = await server.admin("PUT", `/admin/v1/firms/${f.id}/bans`, { user_id: userId });
    expect(res.status).toBe(200);
  }

  describe("success", () => {
    it("answers exactly {success, message} with no assigned_* fields", async () => {
      const res = await withdraw(firm, withdrawalBody());
      expect(res.status).toBe(200);
      expect(res.text).toBe(RECEIVED);
      expect(Object.keys(res.json).sort()).toEqual(["message", "success"]);
      expect(res.text).not.toContain("assigned_");
      expect(String(res.headers["content-type"])).toMatch(/^application\/json/);
    });

    it("stores the withdrawal as pending with the submitted fields", async () => {
      const body = withdrawalBody({ amount: "1234.5", national_id: "12345678901" });
      const res = await withdraw(firm, body);
      expect(res.text).toBe(RECEIVED);
      const tx = await operatorTx(firm, body.reference as string);
      expect(tx).toMatchObject({
        type: "withdrawal",
        status: "pending",
        amount: "1234.50",
        user_id: body.user_id,
        username: body.username,
        first_name: body.first_name,
        last_name: body.last_name,
        bank_code: body.bank_code,
        iban: VALID_IBAN,
        iban_valid: true,
        national_id: "12***01",
        assigned_bank_name: null,
        assigned_holder_name: null,
        assigned_iban: null,
        account_id: null,
      });
    });

    it("a valid TR IBAN is flagged iban_valid true", async () => {
      const body = withdrawalBody({ iban: VALID_IBAN });
      expect((await withdraw(firm, body)).text).toBe(RECEIVED);
      const tx = await operatorTx(firm, body.reference as string);
      expect(tx.iban).toBe(VALID_IBAN);
      expect(tx.iban_valid).toBe(true);
    });

    it("a missing IBAN is still accepted, stored pending with iban_valid false", async () => {
      const body = withdrawalBody();
      delete body.iban;
      const res = await withdraw(firm, body);
      expect(res.status).toBe(200);
      expect(res.text).toBe(RECEIVED);
      const tx = await operatorTx(firm, body.reference as string);
      expect(tx.status).toBe("pending");
      expect(tx.iban_valid).toBe(false);
    });

    it("an empty-string or null IBAN is still accepted with iban_valid false", async () => {
      for (const iban of ["", null]) {
        const body = withdrawalBody({ iban });
        const res = await withdraw(firm, body);
        expect(res.status, `iban ${JSON.stringify(iban)}`).toBe(200);
        expect(res.text).toBe(RECEIVED);
        const tx = await operatorTx(firm, body.reference as string);
        expect(tx.status).toBe("pending");
        expect(tx.iban_valid).toBe(false);
      }
    });

    it.each([
      ["abc", "abc"],
      ["wrong checksum", "TR330006100519786457841327"],
      ["TR00 checksum digits", "TR000006100519786457841326"],
      ["too short TR", "TR3300061005"],
      ["foreign country", "DE89370400440532013000"],
      ["exactly 64 chars", "X".repeat(64)],
    ])("a malformed IBAN (%s) is still accepted and flagged iban_valid false", async (_label, iban) => {
      const body = withdrawalBody({ iban });
      const res = await withdraw(firm, body);
      expect(res.status).toBe(200);
      expect(res.text).toBe(RECEIVED);
      const tx = await operatorTx(firm, body.reference as string);
      expect(tx.status).toBe("pending");
      expect(tx.iban).toBe(iban);
      expect(tx.iban_valid).toBe(false);
    });

    it("an IBAN with control characters (pasted newline, tab, NUL) or lone surrogates is accepted; they are dropped before storing", async () => {
      for (const [iban, stored, valid] of [
        [`${VALID_IBAN}\n`, VALID_IBAN, true],
        [`TR33\t${VALID_IBAN.slice(4)}`, VALID_IBAN, true],
        ["AB\u0000CD", "ABCD", false],
        // Sent as the JSON escape "\ud800"; PostgreSQL stored U+FFFD, another IBAN than was sent.
        [`${VALID_IBAN}\ud800`, VALID_IBAN, true],
        ["AB\udc00CD", "ABCD", false],
      ] as const) {
        const body = withdrawalBody({ iban });
        const res = await withdraw(firm, body);
        expect(res.status, JSON.stringify(iban)).toBe(200);
        const tx = await operatorTx(firm, body.reference as string);
        expect(tx.iban).toBe(stored);
        expect(tx.iban_valid).toBe(valid);
      }
    });

    it("a pending deposit of the same user does not block a withdrawal (one pending per type)", async () => {
      const userId = `both-${Date.now()}`;
      const dep = await send(server, firm, {
        path: "/paymentapi/v1/deposits",
        body: depositBody({ user_id: userId }),
      });
      expect(dep.status).toBe(200);
      const res = await withdraw(firm, withdrawalBody({ user_id: userId }));
      expect(res.text).toBe(RECEIVED);
    });
  });

  describe("validation", () => {
    it("an IBAN over 64 chars is a 400 naming the IBAN field and writes nothing", async () => {
      const f = await createFirm(server);
      const res = await withdraw(f, withdrawalBody({ iban: "T".repeat(65) }));
      expect(res.status).toBe(400);
      expect(Object.keys(res.json).sort()).toEqual(["message", "success"]);
      expect(res.json.success).toBe(false);
      expect(res.json.message).toMatch(/^Validation failed: IBAN /);
      expect(await operatorList(f)).toHaveLength(0);
    });

    it("a missing amount is a 400 'Validation failed: Amount is required'", async () => {
      const body = withdrawalBody();
      delete body.amount;
      const res = await withdraw(firm, body);
      expect(res.status).toBe(400);
      expect(res.text).toBe(envelope("Validation failed: Amount is required"));
    });

    it("an empty-string amount counts as missing", async () => {
      const res = await withdraw(firm, withdrawalBody({ amount: "" }));
      expect(res.status).toBe(400);
      expect(res.text).toBe(envelope("Validation failed: Amount is required"));
    });

    it("an amount sent as a JSON number is a 400 'Validation failed: Amount must be a string'", async () => {
      const res = await withdraw(firm, withdrawalBody({ amount: 150 }));
      expect(res.status).toBe(400);
      expect(res.text).toBe(envelope("Validation failed: Amount must be a string"));
    });

    it.each(["0", "0.00", "-5", "abc", "1.234", "1000000000.00"])(
      "amount %j is a 400 naming Amount",
      async (amount) => {
        const res = await withdraw(firm, withdrawalBody({ amount }));
        expect(res.status).toBe(400);
        expect(res.json.success).toBe(false);
        expect(res.json.message).toMatch(/^Validation failed: Amount /);
      },
    );

    it.each([
      ["bank_code", "BankCode"],
      ["first_name", "FirstName"],
      ["last_name", "LastName"],
      ["reference", "Reference"],
      ["user_id", "UserID"],
      ["username", "Username"],
    ])("a missing %s is a 400 naming %s", async (key, struct) => {
      const body = withdrawalBody();
      delete body[key];
      const res = await withdraw(firm, body);
      expect(res.status).toBe(400);
      expect(res.text).toBe(envelope(`Validation failed: ${struct} is required`));
    });

    it("reports the first failing field in the order of the request table", async () => {
      // bank_code comes before amount in the withdrawal table.
      const bankFirst = withdrawalBody({ bank_code: "", amount: 5 });
      const res1 = await withdraw(firm, bankFirst);
      expect(res1.status).toBe(400);
      expect(res1.json.message).toMatch(/^Validation failed: BankCode /);
      // amount comes before first_name.
      const res2 = await withdraw(firm, withdrawalBody({ amount: 5, first_name: "" }));
      expect(res2.json.message).toMatch(/^Validation failed: Amount /);
      // iban comes before reference.
      const res3 = await withdraw(firm, withdrawalBody({ iban: "T".repeat(65), reference: "" }));
      expect(res3.json.message).toMatch(/^Validation failed: IBAN /);
    });

    it("an invalid middle_name never rejects the withdrawal", async () => {
      for (const middle_name of ["yok", "NULL", "123", "<b>", "   "]) {
        const res = await withdraw(firm, withdrawalBody({ middle_name }));
        expect(res.status, `middle_name ${JSON.stringify(middle_name)}`).toBe(200);
        expect(res.text).toBe(RECEIVED);
      }
    });

    it("rejected validation writes nothing", async () => {
      const f = await createFirm(server);
      await withdraw(f, withdrawalBody({ amount: 150 }));
      await withdraw(f, withdrawalBody({ reference: "" }));
      await withdraw(f, "{not json");
      expect(await operatorList(f)).toHaveLength(0);
    });
  });

  describe("business rejections (strict HTTP)", () => {
    it("a duplicate reference is 409 and writes nothing", async () => {
      const f = await createFirm(server);
      const body = withdrawalBody();
      expect((await withdraw(f, body)).text).toBe(RECEIVED);
      const again = await withdraw(f, withdrawalBody({ reference: body.reference }));
      expect(again.status).toBe(409);
      expect(again.text).toBe(envelope(DUPLICATE));
      expect(await operatorList(f)).toHaveLength(1);
    });

    it("a duplicate reference of the same user (a retry) is 409 duplicate, not pending", async () => {
      const f = await createFirm(server);
      const body = withdrawalBody();
      expect((await withdraw(f, body)).text).toBe(RECEIVED);
      const retry = await withdraw(f, body);
      expect(retry.status).toBe(409);
      expect(retry.text).toBe(envelope(DUPLICATE));
      expect(await operatorList(f)).toHaveLength(1);
    });

    it("a reference used by a deposit cannot be reused by a withdrawal", async () => {
      const f = await createFirm(server);
      const dep = depositBody();
      expect((await send(server, f, { path: "/paymentapi/v1/deposits", body: dep })).status).toBe(200);
      const res = await withdraw(f, withdrawalBody({ reference: dep.reference }));
      expect(res.status).toBe(409);
      expect(res.text).toBe(envelope(DUPLICATE));
      expect(await operatorList(f)).toHaveLength(1);
    });

    it("the same reference is free in another firm", async () => {
      const a = await createFirm(server);
      const b = await createFirm(server);
      const body = withdrawalBody();
      expect((await withdraw(a, body)).text).toBe(RECEIVED);
      expect((await withdraw(b, body)).text).toBe(RECEIVED);
    });

    it("a second pending withdrawal for the same user is 409 and writes nothing", async () => {
      const f = await createFirm(server);
      const first = withdrawalBody();
      expect((await withdraw(f, first)).text).toBe(RECEIVED);
      const res = await withdraw(f, withdrawalBody({ user_id: first.user_id }));
      expect(res.status).toBe(409);
      expect(res.text).toBe(envelope(PENDING));
      expect(await operatorList(f)).toHaveLength(1);
    });

    it("withdrawals closed is 403 and writes nothing; reopening lets it through", async () => {
      const f = await createFirm(server);
      await setWithdrawals(f, "closed");
      const body = withdrawalBody();
      const res = await withdraw(f, body);
      expect(res.status).toBe(403);
      expect(res.text).toBe(envelope(CLOSED));
      expect(await operatorList(f)).toHaveLength(0);
      await setWithdrawals(f, "open");
      expect((await withdraw(f, body)).text).toBe(RECEIVED);
    });

    it("closed withdrawals do not close deposits", async () => {
      const f = await createFirm(server);
      await setWithdrawals(f, "closed");
      const dep = await send(server, f, { path: "/paymentapi/v1/deposits", body: depositBody() });
      expect(dep.status).toBe(200);
    });

    it("a banned user is 403 and writes nothing; other users still pass", async () => {
      const f = await createFirm(server);
      const body = withdrawalBody();
      await ban(f, body.user_id as string);
      const res = await withdraw(f, body);
      expect(res.status).toBe(403);
      expect(res.text).toBe(envelope(BANNED));
      expect(await operatorList(f)).toHaveLength(0);
      expect((await withdraw(f, withdrawalBody())).text).toBe(RECEIVED);
    });

    it("a ban is per firm: the same user_id in another firm is not banned", async () => {
      const a = await createFirm(server);
      const b = await createFirm(server);
      const body = withdrawalBody();
      await ban(a, body.user_id as string);
      expect((await withdraw(b, body)).text).toBe(RECEIVED);
    });
  });

  describe("order of business checks", () => {
    it("duplicate reference wins over withdrawals closed", async () => {
      const f = await createFirm(server);
      const body = withdrawalBody();
      expect((await withdraw(f, body)).text).toBe(RECEIVED);
      await setWithdrawals(f, "closed");
      const res = await withdraw(f, withdrawalBody({ reference: body.reference }));
      expect(res.status).toBe(409);
      expect(res.text).toBe(envelope(DUPLICATE));
    });

    it("duplicate reference wins over a ban (and over closed and pending together)", async () => {
      const f = await createFirm(server);
      const body = withdrawalBody();
      expect((await withdraw(f, body)).text).toBe(RECEIVED);
      await ban(f, body.user_id as string);
      const banned = await withdraw(f, body);
      expect(banned.status).toBe(409);
      expect(banned.text).toBe(envelope(DUPLICATE));
      await setWithdrawals(f, "closed");
      const all = await withdraw(f, body);
      expect(all.status).toBe(409);
      expect(all.text).toBe(envelope(DUPLICATE));
    });

    it("withdrawals closed wins over a ban", async () => {
      const f = await createFirm(server);
      const body = withdrawalBody();
      await ban(f, body.user_id as string);
      await setWithdrawals(f, "closed");
      const res = await withdraw(f, body);
      expect(res.status).toBe(403);
      expect(res.text).toBe(envelope(CLOSED));
    });

    it("withdrawals closed wins over a pending withdrawal", async () => {
      const f = await createFirm(server);
      const first = withdrawalBody();
      expect((await withdraw(f, first)).text).toBe(RECEIVED);
      await setWithdrawals(f, "closed");
      const res = await withdraw(f, withdrawalBody({ user_id: first.user_id }));
      expect(res.status).toBe(403);
      expect(res.text).toBe(envelope(CLOSED));
    });

    it("a ban wins over a pending withdrawal", async () => {
      const f = await createFirm(server);
      const first = withdrawalBody();
      expect((await withdraw(f, first)).text).toBe(RECEIVED);
      await ban(f, first.user_id as string);
      const res = await withdraw(f, withdrawalBody({ user_id: first.user_id }));
      expect(res.status).toBe(403);
      expect(res.text).toBe(envelope(BANNED));
    });

    it("validation comes before business rules", async () => {
      const f = await createFirm(server);
      const body = withdrawalBody();
      expect((await withdraw(f, body)).text).toBe(RECEIVED);
      await setWithdrawals(f, "closed");
      const res = await withdraw(f, { ...body, amount: 150 });
      expect(res.status).toBe(400);
      expect(res.text).toBe(envelope("Validation failed: Amount must be a string"));
    });
  });

  describe("legacy firm (strict HTTP statuses off)", () => {
    it("answers every business rejection with HTTP 200, success false and the same message", async () => {
      const f = await createFirm(server, { legacy_http: true });
      const first = withdrawalBody();
      expect((await withdraw(f, first)).text).toBe(RECEIVED);

      const duplicate = await withdraw(f, withdrawalBody({ reference: first.reference }));
      expect(duplicate.status).toBe(200);
      expect(duplicate.text).toBe(envelope(DUPLICATE));

      const pending = await withdraw(f, withdrawalBody({ user_id: first.user_id }));
      expect(pending.status).toBe(200);
      expect(pending.text).toBe(envelope(PENDING));

      const bannedBody = withdrawalBody();
      await ban(f, bannedBody.user_id as string);
      const banned = await withdraw(f, bannedBody);
      expect(banned.status).toBe(200);
      expect(banned.text).toBe(envelope(BANNED));

      await setWithdrawals(f, "closed");
      const closed = await withdraw(f, withdrawalBody());
      expect(closed.status).toBe(200);
      expect(closed.text).toBe(envelope(CLOSED));

      expect(await operatorList(f)).toHaveLength(1);
    });

    it("keeps validation errors at 400 and success unchanged", async () => {
      const f = await createFirm(server, { legacy_http: true });
      const ok = await withdraw(f, withdrawalBody());
      expect(ok.status).toBe(200);
      expect(ok.text).toBe(RECEIVED);
      const bad = await withdraw(f, withdrawalBody({ amount: 150 }));
      expect(bad.status).toBe(400);
      expect(bad.text).toBe(envelope("Validation failed: Amount must be a string"));
    });
  });
});
