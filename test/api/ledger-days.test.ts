import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { turkeyDayOf } from "../../src/domain/turkey-time.js";
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
 * A firm's days through the admin API (`payintake ledger day`, docs/ledger.md "Reports"): each day's
 * opening, movements by kind and closing add up, the next day opens where the last one closed, and
 * the day's postings page without losing or repeating one.
 */
describe.each(STORES)("a firm's days in the ledger (%s)", (kind) => {
  let server: TestServer;
  let firm: TestFirm;
  let first: string;
  let second: string;

  async function made(path: "deposits" | "withdrawals", amount: string): Promise<number> {
    const body = path === "deposits" ? depositBody({ amount }) : withdrawalBody({ amount });
    expect((await send(server, firm, { path: `/paymentapi/v1/${path}`, body })).status).toBe(200);
    const q = await send(server, firm, {
      path: `/paymentapi/v1/transactions/by-reference/${body.reference}`,
    });
    return q.json.data.id as number;
  }
  const approve = async (id: number) =>
    expect(
      (await server.admin("POST", `/admin/v1/transactions/${id}/approve`, { actor: "cli:test" })).status,
    ).toBe(200);
  const day = (date: string, query = "") =>
    server.admin("GET", `/admin/v1/ledger/firms/${firm.id}/days/${date}${query}`);

  beforeAll(async () => {
    server = await startTestServer(kind, { LOG_LEVEL: "warn" });
    await addAccount(server);
    firm = await createFirm(server, { webhook_url: "http://127.0.0.1:9/cb" });
    const set = await server.admin("PATCH", `/admin/v1/firms/${firm.id}`, {
      commission_deposit: "1.00",
      commission_withdrawal: "0+2.50",
    });
    expect(set.status).toBe(200);
    first = turkeyDayOf(server.clock.now());
    await approve(await made("deposits", "100.00"));
    await approve(await made("deposits", "50.00"));
    await approve(await made("withdrawals", "20.00"));
    server.clock.advance(24 * 3_600_000);
    second = turkeyDayOf(server.clock.now());
    await approve(await made("deposits", "10.00"));
  });
  afterAll(async () => {
    await server?.close();
  });

  it("a day's figures add up, signed as they moved the balance, with each posting's parts", async () => {
    const res = await day(first);
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({
      firm: firm.id,
      date: first,
      opening: "0.00",
      deposits: "150.00",
      withdrawals: "-20.00",
      commissions: "-4.00",
      returns: "0.00",
      settlements: "0.00",
      adjustments: "0.00",
      opening_balance: "0.00",
      closing: "126.00",
      in_transit: { opening: "0.00", closing: "20.00" },
      next: null,
    });
    expect(res.json.other).toBeUndefined();
    expect(
      res.json.postings.map((p: { kind: string; amount: string; parts: object }) => [
        p.kind,
        p.amount,
        p.parts,
      ]),
    ).toEqual([
      ["deposit_approved", "99.00", { deposit: "100.00", commission: "-1.00" }],
      ["deposit_approved", "49.50", { deposit: "50.00", commission: "-0.50" }],
      ["withdrawal_paid", "-22.50", { withdrawal: "-20.00", commission: "-2.50" }],
    ]);
    expect((await day(second)).json).toMatchObject({
      opening: "126.00",
      deposits: "10.00",
      commissions: "-0.10",
      closing: "135.90",
    });
  });

  it("pages a day's postings whole: every posting once, in order", async () => {
    const whole = (await day(first)).json.postings.map((p: { id: number }) => p.id);
    const paged: number[] = [];
    let next: string | null = null;
    do {
      const query: string = `?limit=1${next === null ? "" : `&after=${encodeURIComponent(next)}`}`;
      const page = await day(first, query);
      expect(page.status).toBe(200);
      expect(page.json.postings).toHaveLength(1);
      paged.push(...page.json.postings.map((p: { id: number }) => p.id));
      next = page.json.next;
    } while (next !== null);
    expect(paged).toEqual(whole);
  });

  it("a range of days: each day opens where the one before closed", async () => {
    const res = await server.admin(
      "GET",
      `/admin/v1/ledger/firms/${firm.id}/days?from=${first}&to=${second}`,
    );
    expect(res.status).toBe(200);
    expect(
      res.json.days.map((d: { date: string; opening: string; closing: string }) => [
        d.date,
        d.opening,
        d.closing,
      ]),
    ).toEqual([
      [first, "0.00", "126.00"],
      [second, "126.00", "135.90"],
    ]);
  });

  it("refuses what is not a day, a day to come, a page's end it never gave and an unknown firm", async () => {
    const tomorrow = turkeyDayOf(server.clock.now() + 24 * 3_600_000);
    const refused = async (path: string) => (await server.admin("GET", path)).json;
    const base = `/admin/v1/ledger/firms/${firm.id}`;
    expect(await refused(`${base}/days/2026-02-30`)).toMatchObject({
      code: "invalid_input",
      message: "date: not a day (YYYY-MM-DD)",
    });
    expect((await refused(`${base}/days/${tomorrow}`)).message).toMatch(/still to come/);
    expect((await refused(`${base}/days/${first}?after=x`)).message).toMatch(/^after:/);
    expect((await refused(`${base}/days/${first}?limit=0`)).code).toBe("invalid_input");
    expect((await refused(`${base}/days?from=2024-01-01&to=${second}`)).message).toMatch(/at most 366 days/);
    expect((await refused(`${base}/days?from=${second}&to=${first}`)).code).toBe("invalid_input");
    expect((await refused(`/admin/v1/ledger/firms/999999/days/${first}`)).code).toBe("firm_not_found");
  });
});
