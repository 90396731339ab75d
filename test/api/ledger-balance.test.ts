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
    expect(set.json.commissions).toEqual({
      deposit: "1.75+1.00",
      deposit_min: null,
      deposit_max: null,
      withdrawal: "0+2.50",
      withdrawal_min: null,
      withdrawal_max: null,
      from: expect.stringMatching(/^\d{4}-\d\d-\d\dT[\d:.]+Z$/),
    });
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

  it("a commission's minimum and maximum, and a schedule to come, each from its moment", async () => {
    const other = await createFirm(server, { webhook_url: "http://127.0.0.1:9/cb" });
    const patch = (body: object) => server.admin("PATCH", `/admin/v1/firms/${other.id}`, body);
    expect((await patch({ commission_deposit: "2" })).status).toBe(200);
    // The minimum alone keeps the percentage in force.
    const bounded = await patch({ commission_deposit_min: "5.00", commission_deposit_max: "8.00" });
    expect(bounded.json.commissions).toMatchObject({
      deposit: "2+0.00",
      deposit_min: "5.00",
      deposit_max: "8.00",
    });
    server.clock.advance(1_000);
    const later = new Date(server.clock.now() + 60_000).toISOString();
    const coming = await patch({
      commission_deposit: "1",
      commission_deposit_min: null,
      commission_from: later,
    });
    expect(coming.json.commissions).toEqual({
      deposit: "1",
      deposit_min: null,
      deposit_max: "8.00",
      from: later,
    });
    const was = firm;
    firm = other;
    try {
      // 2 % of 100.00 is 2.00, raised to the minimum 5.00; of 1,000.00 it is 20.00, lowered to 8.00.
      await decide(await made("deposits", "100.00"), "approve");
      await decide(await made("deposits", "1000.00"), "approve");
      expect((await balance()).json.balance).toBe("1087.00");
      server.clock.advance(61_000);
      // From the later moment: 1 %, no minimum, the maximum kept.
      await decide(await made("deposits", "100.00"), "approve");
      expect((await balance()).json.balance).toBe("1186.00");
    } finally {
      firm = was;
    }
    const past = new Date(server.clock.now() - 1_000).toISOString();
    const refused = await patch({ commission_deposit: "3", commission_from: past });
    expect(refused).toMatchObject({ status: 400, json: { code: "invalid_input" } });
    expect(refused.json.message).toBe("commission_from: must be now or later");
    const crossed = await patch({ commission_withdrawal_min: "9.00", commission_withdrawal_max: "1.00" });
    expect(crossed).toMatchObject({ status: 400, json: { code: "min_above_max" } });
    expect((await patch({ commission_from: later })).json.message).toMatch(/^commission_from: goes with/);
    // Two changes from one moment at once: one is written, whole; the other is refused.
    const moment = new Date(server.clock.now() + 7_200_000).toISOString();
    const both = await Promise.all([
      patch({ commission_deposit: "4", commission_withdrawal: "4", commission_from: moment }),
      patch({ commission_deposit: "5", commission_withdrawal: "5", commission_from: moment }),
    ]);
    expect(both.map((r) => r.status).sort()).toEqual([200, 400]);
    const won = both.find((r) => r.status === 200);
    expect(both.find((r) => r.status === 400)?.json.message).toMatch(
      /^commission_from: the firm's \w+ commission changes at that moment already$/,
    );
    expect(won?.json.commissions.withdrawal).toBe(won?.json.commissions.deposit);
  });

  it("an unknown firm, a bad id or a bad time: clear refusals", async () => {
    expect((await server.admin("GET", "/admin/v1/ledger/firms/999999/balance")).json.code).toBe(
      "firm_not_found",
    );
    expect((await server.admin("GET", "/admin/v1/ledger/firms/x/balance")).json.code).toBe("invalid_id");
    expect((await balance("?at=yesterday")).json.code).toBe("invalid_input");
  });
});
