import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isPaymentCode, paymentCodeFor } from "../../src/domain/payment-code.js";
import { STORES, startTestServer, type TestServer } from "../support/harness.js";
import { addAccount, createFirm, depositBody, send } from "../support/merchant.js";

/**
 * The payment code in direct mode (issue 34): the contract's answer and query view stay as they are
 * unless the firm opts in; then both carry `payment_code`, the one the bank statement is matched by.
 */
describe.each(STORES)("payment code in direct-mode answers (%s)", (kind) => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer(kind, { LOG_LEVEL: "warn" });
    await addAccount(server);
  });
  afterAll(async () => {
    await server?.close();
  });

  it("is absent by default, byte for byte; a firm that opts in gets it in the answer and the queries", async () => {
    const firm = await createFirm(server);
    const plain = depositBody();
    const answer = await send(server, firm, { path: "/paymentapi/v1/deposits", body: plain });
    expect(Object.keys(answer.json)).toEqual([
      "success",
      "message",
      "assigned_bank_name",
      "assigned_holder_name",
      "assigned_iban",
    ]);
    const q = await send(server, firm, {
      path: `/paymentapi/v1/transactions/by-reference/${plain.reference}`,
    });
    expect(q.json.data.payment_code).toBeUndefined();

    const patched = await server.admin("PATCH", `/admin/v1/firms/${firm.id}`, { answer_payment_code: true });
    expect(patched.json.answer_payment_code).toBe(true);
    const coded = depositBody();
    const second = await send(server, firm, { path: "/paymentapi/v1/deposits", body: coded });
    expect(Object.keys(second.json).at(-1)).toBe("payment_code");
    expect(isPaymentCode(second.json.payment_code)).toBe(true);
    const byRef = await send(server, firm, {
      path: `/paymentapi/v1/transactions/by-reference/${coded.reference}`,
    });
    const id = byRef.json.data.id as number;
    expect(second.json.payment_code).toBe(paymentCodeFor(id));
    expect(byRef.json.data.payment_code).toBe(paymentCodeFor(id));
    const byId = await send(server, firm, { path: `/paymentapi/v1/transactions/${id}` });
    expect(byId.json.data.payment_code).toBe(paymentCodeFor(id));
  });
});
