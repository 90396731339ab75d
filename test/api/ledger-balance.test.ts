import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { STORES, startTestServer, type TestServer } from "../support/harness.js";
import {
  addAccount,
  createFirm,
  depositBody,
  send,
  type TestFirm,
  withdrawalBody,
} from "../support/merchant.js";

/**
 * A firm's balance through the admin API (`payintake ledger balance`): approvals post as they are
 * made, whichever way (docs/ledger.md); a rejection moves nothing; a balance as of a moment before
 * the ledger began, or still to come, is refused with a clear error.
 */
describe.each(STORES)("a firm's balance in the ledger (%s)", (kind) => {
  let server: TestServer;
  let firm: TestFirm;

  beforeAll(async () => {
    server = await startTestServer(kind, { LOG_LEVEL: "warn" });
    await addAccount(server);
    firm = await createFirm(server, { webhook_url: "http://127.0.0.1:9/cb" });
  });
  afterAll(async () => {
    await server?.close();
  });

  async function made(path: "deposits" | "withdrawals", amount: string): Promise<number> {
    const body = path === "deposits" ? depositBody({ amount }) : withdrawalBody({ amount });
    expect((await send(server, firm, { path: `/paymentapi/v1/${path}`, body })).status).toBe(200);
    const q = await send(server, firm, {
      path: `/paymentapi/v1/transactions/by-reference/${body.reference}`,
    });
    return q.json.data.id as number;
  }
  const decide = async (id: number, how: "approve" | "reject") =>
    expect(
      (await server.admin("POST", `/admin/v1/transactions/${id}/${how}`, { actor: "cli:test" })).status,
    ).toBe(200);
  const balance = (query = "") => server.admin("GET", `/admin/v1/ledger/firms/${firm.id}/balance${query}`);

  it("starts at zero, and follows approvals: deposits in, withdrawals out into transit", async () => {
    expect((await balance()).json).toEqual({
      firm: firm.id,
      balance: "0.00",
      in_transit: "0.00",
      available: "0.00",
    });
    const before = server.clock.now();
    await decide(await made("deposits", "250.00"), "approve");
    await decide(await made("deposits", "99.99"), "reject");
    await decide(await made("withdrawals", "100.50"), "approve");
    expect((await balance()).json).toEqual({
      firm: firm.id,
      balance: "149.50",
      in_transit: "100.50",
      available: "149.50",
    });
    server.clock.advance(1_000);
    const asOf = new Date(server.clock.now()).toISOString();
    expect((await balance(`?at=${encodeURIComponent(asOf)}`)).json).toMatchObject({
      balance: "149.50",
      at: asOf,
    });
    const early = new Date(before - 60_000).toISOString();
    expect(await balance(`?at=${encodeURIComponent(early)}`)).toMatchObject({
      status: 400,
      json: { success: false, code: "invalid_input" },
    });
    const later = new Date(server.clock.now() + 3_600_000).toISOString();
    expect((await balance(`?at=${encodeURIComponent(later)}`)).json.message).toMatch(/still to come/);
  });

  it("a commission set on the firm is taken from each later approval, to the kuruş", async () => {
    const other = await createFirm(server, { webhook_url: "http://127.0.0.1:9/cb" });
    const set = await server.admin("PATCH", `/admin/v1/firms/${other.id}`, {
      commission_deposit: "1.75+1.00",
      commission_withdrawal: "0+2.50",
    });
    expect(set.status).toBe(200);
    expect(set.json.commissions).toEqual({ deposit: "1.75+1.00", withdrawal: "0+2.50" });
    const was = firm;
    firm = other;
    try {
      // 1.75 % of 250.01 is 4.375175: 4.38 half up, and the fixed 1.00.
      await decide(await made("deposits", "250.01"), "approve");
      await decide(await made("withdrawals", "10.00"), "approve");
      expect((await balance()).json).toMatchObject({ balance: `${(25_001 - 538 - 1_000 - 250) / 100}` });
    } finally {
      firm = was;
    }
    const bad = await server.admin("PATCH", `/admin/v1/firms/${other.id}`, { commission_deposit: "1.755" });
    expect(bad).toMatchObject({ status: 400, json: { code: "invalid_input" } });
    expect(bad.json.message).toMatch(/^commission_deposit: has a percentage of at most two decimals/);
  });

  it("an unknown firm, a bad id or a bad time: clear refusals", async () => {
    expect((await server.admin("GET", "/admin/v1/ledger/firms/999999/balance")).json.code).toBe(
      "firm_not_found",
    );
    expect((await server.admin("GET", "/admin/v1/ledger/firms/x/balance")).json.code).toBe("invalid_id");
    expect((await balance("?at=yesterday")).json.code).toBe("invalid_input");
  });
});
