import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { consoleCall, consoleLogin } from "../support/console.js";
import { STORES, startTestServer, type TestServer } from "../support/harness.js";
import {
  addAccount,
  createFirm,
  depositBody,
  send,
  type TestFirm,
  withdrawalBody,
} from "../support/merchant.js";

const DEPOSITS = "/paymentapi/v1/deposits";
const WITHDRAWALS = "/paymentapi/v1/withdrawals";

/**
 * Fields the API does not read (docs/integration-guide.md, "Fields the API does not know"): still
 * accepted, the answer's body the contract's; their names are kept for the operators' detail, and a
 * test firm's answers name them in X-Ignored-Fields.
 */
describe.each(STORES)("fields the API ignores (%s)", (kind) => {
  let server: TestServer;
  let live: TestFirm;
  let sandbox: TestFirm;

  beforeAll(async () => {
    server = await startTestServer(kind, { LOG_LEVEL: "warn" });
    await addAccount(server, { iban: "TR330006100519786457841326" });
    live = await createFirm(server);
    sandbox = await createFirm(server, { sandbox: true });
    await server.admin("POST", "/admin/v1/operators", {
      email: "viewer@ops.example",
      role: "viewer",
      password: "viewer-password-123",
    });
  });
  afterAll(async () => {
    await server?.close();
  });

  async function detailOf(firm: TestFirm, reference: unknown) {
    const q = await send(server, firm, { path: `/paymentapi/v1/transactions/by-reference/${reference}` });
    expect(q.status).toBe(200);
    // The merchant's own view never carries them.
    expect(q.json.data).not.toHaveProperty("ignored_fields");
    const detail = await server.admin("GET", `/admin/v1/transactions/${q.json.data.id}`);
    return { id: q.json.data.id as number, detail: detail.json };
  }

  it("a test firm's deposit is answered as the contract says, with the ignored names in a header", async () => {
    const body = depositBody({ returnUrl: "https://shop.example/back", nationalid: "12345678901" });
    const res = await send(server, sandbox, { path: DEPOSITS, body });
    expect(res.status).toBe(200);
    expect(res.headers["x-ignored-fields"]).toBe("returnUrl, nationalid");
    expect(res.text).toBe(
      '{"success":true,"message":"Yatırım talebiniz alındı","assigned_bank_name":"Sandbox Bank","assigned_holder_name":"payintake sandbox","assigned_iban":"TR809999900000000000000001"}',
    );
    const { detail } = await detailOf(sandbox, body.reference);
    expect(detail.ignored_fields).toEqual(["returnUrl", "nationalid"]);
  });

  it("a live firm's answer carries no header; its operators see the names in the detail", async () => {
    const body = depositBody({ returnUrl: "https://shop.example/back", nationalid: "12345678901" });
    const res = await send(server, live, { path: DEPOSITS, body });
    expect(res.status).toBe(200);
    expect(res.headers).not.toHaveProperty("x-ignored-fields");
    expect(Object.keys(res.json)).toEqual([
      "success",
      "message",
      "assigned_bank_name",
      "assigned_holder_name",
      "assigned_iban",
    ]);
    const { id, detail } = await detailOf(live, body.reference);
    expect(detail.ignored_fields).toEqual(["returnUrl", "nationalid"]);
    // The console's detail (web/console/transaction-detail.tsx reads it) shows the same; no value.
    const viewer = await consoleLogin(server, "viewer@ops.example", "viewer-password-123");
    const seen = await consoleCall(server, "GET", `/ops/api/transactions/${id}`, { cookie: viewer.cookie });
    expect(seen.json.ignored_fields).toEqual(["returnUrl", "nationalid"]);
    expect(JSON.stringify(seen.json)).not.toContain("shop.example/back");
  });

  it("a request with only the contract's fields has none, and no header", async () => {
    const body = depositBody({ middle_name: "Nur", method: "eft", return_url: "https://shop.example/x" });
    const res = await send(server, sandbox, { path: DEPOSITS, body });
    expect(res.status).toBe(200);
    expect(res.headers).not.toHaveProperty("x-ignored-fields");
    expect((await detailOf(sandbox, body.reference)).detail.ignored_fields).toBeNull();
  });

  it("withdrawals alike: method and middle_name are read, a misspelt field is named", async () => {
    const body = withdrawalBody({ method: "eft", middle_name: "Can", Iban: "TR33" });
    const res = await send(server, sandbox, { path: WITHDRAWALS, body });
    expect(res.status).toBe(200);
    expect(res.headers["x-ignored-fields"]).toBe("Iban");
    expect(res.text).toBe('{"success":true,"message":"Çekim talebiniz alındı"}');
    expect((await detailOf(sandbox, body.reference)).detail.ignored_fields).toEqual(["Iban"]);
    const plain = await send(server, live, { path: WITHDRAWALS, body: withdrawalBody({ Iban: "TR33" }) });
    expect(plain.status).toBe(200);
    expect(plain.headers).not.toHaveProperty("x-ignored-fields");
  });

  it("a business rejection of a test firm's request names them too; a 400 does not", async () => {
    const refused = await send(server, sandbox, {
      path: DEPOSITS,
      body: depositBody({ amount: "100.92", returnURL: "x" }),
    });
    expect([refused.status, refused.text]).toEqual([
      422,
      '{"success":false,"message":"Bu tutar icin uygun hesap yok"}',
    ]);
    expect(refused.headers["x-ignored-fields"]).toBe("returnURL");
    const invalid = await send(server, sandbox, {
      path: DEPOSITS,
      body: depositBody({ first_name: "", returnURL: "x" }),
    });
    expect(invalid.status).toBe(400);
    expect(invalid.headers).not.toHaveProperty("x-ignored-fields");
  });

  it("at most 20 names of at most 64 characters; any name fits a header, percent-encoded", async () => {
    const extra: Record<string, string> = {
      "ödeme alanı": "1",
      "a,b": "2",
      "tab\there": "3",
      [`k${"x".repeat(99)}`]: "4",
    };
    for (let i = 0; i < 30; i++) extra[`extra_${i}`] = String(i);
    const body = depositBody(extra);
    const res = await send(server, sandbox, { path: DEPOSITS, body });
    expect(res.status).toBe(200);
    const { detail } = await detailOf(sandbox, body.reference);
    const names = detail.ignored_fields as string[];
    expect(names).toHaveLength(20);
    expect(names.slice(0, 4)).toEqual(["ödeme alanı", "a,b", "tabhere", `k${"x".repeat(63)}`]);
    expect(names[19]).toBe("extra_15");
    const header = res.headers["x-ignored-fields"] as string;
    expect(header.split(", ").map(decodeURIComponent)).toEqual(names);
    expect(header.startsWith("%C3%B6deme%20alan%C4%B1, a%2Cb, tabhere, kxxx")).toBe(true);
  });

  it("a hosted deposit: the session's answer names them, and the transaction made from the page keeps them", async () => {
    const body = depositBody({ redirect: true, amount: undefined, returnUrl: "https://shop.example/r" });
    const opened = await send(server, sandbox, { path: DEPOSITS, body });
    expect(opened.status).toBe(200);
    expect(opened.headers["x-ignored-fields"]).toBe("returnUrl");
    const token = (opened.json.payment_url as string).split("/").pop() as string;
    const paid = await request(`${server.url}/api/pay/${token}/deposit`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ amount: "120.00" }),
    });
    expect(paid.statusCode).toBe(200);
    await paid.body.dump();
    expect((await detailOf(sandbox, body.reference)).detail.ignored_fields).toEqual(["returnUrl"]);
  });
});
