import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isPaymentCode, legacyPaymentCode } from "../../src/domain/payment-code.js";
import { paymentCodeKey } from "../../src/store/migrations/20261204T1000_payment_code_key.js";
import { STORES, startTestServer, storeEnv, type TestServer } from "../support/harness.js";
import {
  addAccount,
  createFirm,
  depositBody,
  paymentCodeOf,
  pendingDeposit,
  send,
  type TestFirm,
} from "../support/merchant.js";
import { undoMigration } from "../support/store.js";
import { storedPaymentCodes, withStore } from "../support/stored.js";

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
    expect(byRef.json.data.payment_code).toBe(second.json.payment_code);
    const byId = await send(server, firm, { path: `/paymentapi/v1/transactions/${id}` });
    expect(byId.json.data.payment_code).toBe(second.json.payment_code);
    // Keyed by the store's secret: not the keyless formula anyone could compute from the id.
    expect(second.json.payment_code).not.toBe(legacyPaymentCode(id));
  });
});

/**
 * A store that had deposits before payment codes were keyed (docs/adr/0015-keyed-payment-codes.md):
 * a server plays the earlier version, the migration is then undone as if it had never run, and a
 * server of this version migrates the store. Deposits made before keep the code their payers were
 * shown, on every surface and in the matching; deposits made after get the keyed one.
 */
describe.each(STORES)("payment codes across the keyed codes' migration (%s)", (kind) => {
  it("a deposit made before keeps its keyless code; one made after is keyed; a line with either code approves", async () => {
    const store = await storeEnv(kind);
    let server: TestServer | undefined;
    try {
      const earlier = await startTestServer(kind, { ...store.env, LOG_LEVEL: "warn" });
      const account = await addAccount(earlier);
      const firm = await createFirm(earlier, { answer_payment_code: true });
      const before = await pendingDeposit(earlier, firm, { amount: "101.00" });
      await earlier.close();
      await withStore(store.env, (s) =>
        undoMigration(s, paymentCodeKey.version, ["DROP TABLE payment_code_keys"]),
      );

      server = await startTestServer(kind, { ...store.env, LOG_LEVEL: "warn" });
      const oldCode = await paymentCodeOf(server, firm, before);
      expect(oldCode).toBe(legacyPaymentCode(before));
      const after = await pendingDeposit(server, firm, { amount: "102.00" });
      const newCode = await paymentCodeOf(server, firm, after);
      expect(isPaymentCode(newCode)).toBe(true);
      expect(newCode).not.toBe(legacyPaymentCode(after));
      await expectLines(server, firm, account.id, { before, oldCode, after, newCode });
      await server.close();
      server = undefined;

      // The keyed code is the store's key's: HMAC of the id under it, with the cutover between them.
      await withStore(store.env, async (s) => {
        const [row] = await s.db.selectFrom("payment_code_keys").selectAll().execute();
        expect(row?.legacy_through).toBeGreaterThanOrEqual(before);
        expect(row?.legacy_through).toBeLessThan(after);
        const codes = await storedPaymentCodes(s, store.env);
        expect([codes.of(before), codes.of(after)]).toEqual([oldCode, newCode]);
      });
    } finally {
      await server?.close();
      await store.cleanup();
    }
  });
});

/**
 * Lines typed for the account: the keyless formula of the new deposit approves nothing, its keyed
 * code approves it, and the old deposit's keyless code still approves the old one. The sender is
 * nobody's name: the code is the evidence.
 */
async function expectLines(
  server: TestServer,
  firm: TestFirm,
  accountId: number,
  d: { before: number; oldCode: string; after: number; newCode: string },
) {
  const line = async (amount: string, description: string) => {
    const res = await server.admin("POST", `/admin/v1/accounts/${accountId}/statement-lines`, {
      booked_at: new Date(server.clock.now()).toISOString(),
      amount,
      sender_name: "BASKA BIRI",
      description,
    });
    expect(res.status).toBe(200);
    return res.json.results[0] as { state: string; transaction_id: number | null };
  };
  const status = async (id: number) =>
    (await send(server, firm, { path: `/paymentapi/v1/transactions/${id}` })).json.data.status;
  expect((await line("102.00", `odeme ${legacyPaymentCode(d.after)}`)).state).not.toBe("approved");
  expect(await status(d.after)).toBe("pending");
  expect(await line("102.00", `odeme ${d.newCode}`)).toMatchObject({
    state: "approved",
    transaction_id: d.after,
  });
  expect(await line("101.00", `odeme ${d.oldCode}`)).toMatchObject({
    state: "approved",
    transaction_id: d.before,
  });
  expect([await status(d.before), await status(d.after)]).toEqual(["approved", "approved"]);
}
