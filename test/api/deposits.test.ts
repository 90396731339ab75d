import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { STORES, startTestServer, type TestServer } from "../support/harness.js";
import { addAccount, createFirm, depositBody, send, type TestFirm } from "../support/merchant.js";

describe.each(STORES)("POST /paymentapi/v1/deposits on %s", (kind) => {
  let server: TestServer;
  let firm: TestFirm;

  beforeAll(async () => {
    server = await startTestServer(kind);
    firm = await createFirm(server);
    await addAccount(server);
  });
  afterAll(() => server?.close());

  it("creates a direct deposit and answers exactly the contract's success body", async () => {
    const res = await send(server, firm, { path: "/paymentapi/v1/deposits", body: depositBody() });
    expect(res.status).toBe(200);
    expect(res.text).toBe(
      '{"success":true,"message":"Yatırım talebiniz alındı","assigned_bank_name":"Ziraat Bankası","assigned_holder_name":"Ödeme Hizmetleri A.Ş.","assigned_iban":"TR330006100519786457841326"}',
    );
  });
});
