import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { STORES, startTestServer, type TestServer } from "../support/harness.js";
import { addAccount, createFirm, depositBody, send, type TestFirm } from "../support/merchant.js";

/**
 * The store without its machinery (ADR 0012: PAYINTAKE_SQLITE_THREAD and PAYINTAKE_PG_BATCHES off,
 * for measuring what each buys) still keeps the contract and the money invariants.
 */
describe.each(STORES)("%s without the store's machinery", (kind) => {
  let server: TestServer;
  let firm: TestFirm;
  beforeAll(async () => {
    server = await startTestServer(kind, { PAYINTAKE_SQLITE_THREAD: "false", PAYINTAKE_PG_BATCHES: "false" });
    firm = await createFirm(server);
    await addAccount(server);
  });
  afterAll(async () => {
    await server?.close();
  });

  it("takes deposits, refuses a reused reference and a second pending one, and answers queries", async () => {
    const body = depositBody();
    const created = await send(server, firm, { path: "/paymentapi/v1/deposits", body });
    expect(created.status).toBe(200);
    expect(created.json.assigned_iban).toBe("TR330006100519786457841326");

    const again = await send(server, firm, { path: "/paymentapi/v1/deposits", body });
    expect(again.status).toBe(409);

    const sameUser = await send(server, firm, {
      path: "/paymentapi/v1/deposits",
      body: depositBody({ user_id: body.user_id }),
    });
    expect(sameUser.status).toBe(409);

    const found = await send(server, firm, {
      path: `/paymentapi/v1/transactions/by-reference/${body.reference}`,
    });
    expect(found.status).toBe(200);
    expect(found.json.data.status).toBe("pending");
  });

  it("keeps one pending deposit per user under concurrent requests", async () => {
    const userId = `u-${Date.now()}`;
    const answers = await Promise.all(
      Array.from({ length: 20 }, () =>
        send(server, firm, { path: "/paymentapi/v1/deposits", body: depositBody({ user_id: userId }) }),
      ),
    );
    expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
    expect(answers.filter((a) => a.status === 409)).toHaveLength(19);
  });
});
