import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ChannelSimulator, startChannelSimulator } from "../../src/routing/channels/simulator.js";
import { STORES, startTestServer, type TestServer } from "../support/harness.js";
import { addAccount, createFirm, depositBody, send, statusOf, type TestFirm } from "../support/merchant.js";
import { type ConsoleOperator, consoleOperator, pendingWithdrawal } from "../support/payouts.js";

/**
 * A payout's stages in the ledger and the ledger's guard (issue 48, point 6; docs/payouts.md),
 * through the real server on both stores: sent moves the firm's money into transit, the bank's
 * debit (or a channel's "paid") out of transit to the paying account's cash with the commission, a
 * return or a refusal back to the firm; each once, whatever is retried. A payout beyond the firm's
 * balance is left out of batches with its reason, an operator's approval of one by hand refused,
 * unless the firm's overdraft covers it; an admin's approval and a test firm's are not guarded.
 */
describe.each(STORES)("a payout in the ledger, and the ledger's guard (%s)", (kind) => {
  let server: TestServer;
  let account: { id: number; iban: string };
  let operator: ConsoleOperator;
  let firstDay: string;
  const sims: ChannelSimulator[] = [];

  beforeAll(async () => {
    server = await startTestServer(kind, { LOG_LEVEL: "warn" });
    account = await addAccount(server);
    operator = await consoleOperator(server, "operator", "guarded");
    const on = await server.admin("PATCH", "/admin/v1/payouts/settings", {
      payouts: true,
      two_person_batch_above: "none",
    });
    expect(on.status).toBe(200);
    firstDay = turkeyDay(server.clock.now());
  });
  afterAll(async () => {
    for (const sim of sims) await sim.close();
    await server?.close();
  });

  const turkeyDay = (at: number) => new Date(at + 3 * 3_600_000).toISOString().slice(0, 10);

  /** A firm with `funds` in its balance: a deposit of that much, approved. */
  async function firmWith(funds: string, changes: Record<string, unknown> = {}): Promise<TestFirm> {
    const firm = await createFirm(server);
    if (Object.keys(changes).length > 0) {
      const set = await server.admin("PATCH", `/admin/v1/firms/${firm.id}`, changes);
      expect(set.status, JSON.stringify(set.json)).toBe(200);
    }
    if (funds !== "0.00") await fund(firm, funds);
    return firm;
  }

  async function fund(firm: TestFirm, amount: string) {
    const body = depositBody({ amount });
    expect((await send(server, firm, { path: "/paymentapi/v1/deposits", body })).status).toBe(200);
    const q = await send(server, firm, {
      path: `/paymentapi/v1/transactions/by-reference/${body.reference}`,
    });
    const approved = await server.admin("POST", `/admin/v1/transactions/${q.json.data.id}/approve`, {
      actor: "funds",
    });
    expect(approved.status).toBe(200);
  }

  const balance = async (firm: TestFirm) =>
    (await server.admin("GET", `/admin/v1/ledger/firms/${firm.id}/balance`)).json as {
      balance: string;
      in_transit: string;
      available: string;
    };
  const figures = async (firm: TestFirm) => {
    const b = await balance(firm);
    return [b.balance, b.in_transit, b.available];
  };

  /** The keys of the postings on the firm's balance since the file began. */
  async function postingKeys(firm: TestFirm): Promise<string[]> {
    const days = [...new Set([firstDay, turkeyDay(server.clock.now())])];
    const keys: string[] = [];
    for (const day of days) {
      const res = await server.admin("GET", `/admin/v1/ledger/firms/${firm.id}/days/${day}`);
      expect(res.status, JSON.stringify(res.json)).toBe(200);
      keys.push(...(res.json.postings as { key: string }[]).map((p) => p.key));
    }
    return keys;
  }

  const batch = (firm: TestFirm, accountId = account.id) =>
    server.admin("POST", "/admin/v1/payouts/batches", { account: accountId, firm: firm.id, actor: "ayse" });
  const items = async (batchId: number) =>
    (await server.admin("GET", `/admin/v1/payouts/batches/${batchId}`)).json.items as Array<{
      attempt: number;
      transaction_id: number;
      payment_id: string;
      stage: string;
      flag: string | null;
    }>;
  const markSent = (batchId: number) =>
    server.admin("POST", `/admin/v1/payouts/batches/${batchId}/sent`, { actor: "ayse" });
  const waiting = async (firm: TestFirm) =>
    (await server.admin("GET", `/admin/v1/payouts/waiting?firm=${firm.id}`)).json.waiting as Array<{
      transaction_id: number;
      not_batchable_code: string | null;
      not_batchable: string | null;
    }>;
  /** A line an operator types on the paying account, as stored. */
  async function typedLine(body: Record<string, unknown>, accountId = account.id) {
    const res = await server.admin("POST", `/admin/v1/accounts/${accountId}/statement-lines`, {
      booked_at: new Date(server.clock.now()).toISOString(),
      ...body,
    });
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    return (await server.admin("GET", `/admin/v1/statement-lines/${res.json.results[0].id}`)).json;
  }

  /** One withdrawal of the firm batched and marked sent: its id and attempt. */
  async function sentPayout(firm: TestFirm, amount: string) {
    const id = await pendingWithdrawal(server, firm, { amount });
    const made = await batch(firm);
    expect(made.status, JSON.stringify(made.json)).toBe(201);
    expect((await markSent(made.json.batch)).status).toBe(200);
    const [item] = await items(made.json.batch);
    return {
      id,
      batch: made.json.batch as number,
      attempt: item?.attempt as number,
      paymentId: item?.payment_id as string,
    };
  }

  it("a firm's overdraft: set, shown, cleared, audited; a malformed one refused", async () => {
    const firm = await createFirm(server);
    expect((await server.admin("GET", `/admin/v1/firms/${firm.id}`)).json.overdraft).toBeNull();
    const set = await server.admin("PATCH", `/admin/v1/firms/${firm.id}`, { overdraft: "1500.00" });
    expect([set.status, set.json.overdraft]).toEqual([200, "1500.00"]);
    const cleared = await server.admin("PATCH", `/admin/v1/firms/${firm.id}`, { overdraft: null });
    expect([cleared.status, cleared.json.overdraft]).toEqual([200, null]);
    for (const bad of ["0", "-5.00", "1500.001", "lots"]) {
      const refused = await server.admin("PATCH", `/admin/v1/firms/${firm.id}`, { overdraft: bad });
      expect([refused.status, refused.json.code], bad).toEqual([400, "invalid_input"]);
      expect(refused.json.message, bad).toMatch(/^overdraft: /);
    }
    const audit = await server.admin("GET", `/admin/v1/audit?action=firm.update&entity_id=${firm.id}`);
    const afters = (audit.json as { after: Record<string, unknown> }[]).map((e) => e.after);
    expect(afters).toContainEqual(expect.objectContaining({ overdraft: 150_000 }));
    expect(afters).toContainEqual(expect.objectContaining({ overdraft: null }));
    // The guard itself is a payout setting: on by default, a firm's own wins, an account sets none.
    const shown = await server.admin("GET", `/admin/v1/payouts/settings?firm=${firm.id}`);
    expect(shown.json.balance_guard).toBe(true);
    const off = await server.admin("PATCH", "/admin/v1/payouts/settings", {
      firm: firm.id,
      balance_guard: false,
    });
    expect([off.status, off.json.balance_guard, off.json.set_here]).toEqual([200, false, ["balanceGuard"]]);
    const onAccount = await server.admin("PATCH", "/admin/v1/payouts/settings", {
      account: account.id,
      balance_guard: false,
    });
    expect([onAccount.status, onAccount.json.message]).toEqual([
      400,
      "balance_guard is set for the service or a firm, not an account",
    ]);
  });

  it("sent: out of the firm's balance into transit; paid by the bank's debit: out of transit with the commission; each once", async () => {
    const firm = await firmWith("1000.00", { commission_withdrawal: "1.00+0.50" });
    const id = await pendingWithdrawal(server, firm, { amount: "300.00" });
    const made = await batch(firm);
    expect(made.status).toBe(201);
    // Batched, not sent: held back from what is available, still in the balance.
    expect(await figures(firm)).toEqual(["1000.00", "0.00", "700.00"]);
    expect((await markSent(made.json.batch)).status).toBe(200);
    expect(await figures(firm)).toEqual(["700.00", "300.00", "700.00"]);
    // Marked sent again: refused, and nothing posts twice.
    expect((await markSent(made.json.batch)).json.code).toBe("payout_batch_stage");
    expect(await figures(firm)).toEqual(["700.00", "300.00", "700.00"]);

    const [item] = await items(made.json.batch);
    const line = await typedLine({ amount: "300.00", direction: "debit", end_to_end_id: item?.payment_id });
    expect(line.payout_outcome).toBe("paid");
    expect(await statusOf(server, id)).toBe("approved");
    // 1 % of 300.00 and 0.50: 3.50, taken once the money left; transit empty, the firm debited once.
    expect(await figures(firm)).toEqual(["696.50", "0.00", "696.50"]);
    // The same debit again, and another line naming it: a duplicate, a double payment raised; no posting.
    await typedLine({ amount: "300.00", direction: "debit", end_to_end_id: item?.payment_id });
    const again = await typedLine({
      amount: "300.00",
      direction: "debit",
      end_to_end_id: item?.payment_id,
      description: "again",
    });
    expect(again.payout_outcome).toBe("double_payment");
    expect(await figures(firm)).toEqual(["696.50", "0.00", "696.50"]);
    expect(await postingKeys(firm)).toEqual([
      expect.stringMatching(/^deposit-approved:/),
      `payout-sent:${item?.attempt}`,
      `payout-paid:${item?.attempt}`,
    ]);
  });

  it("returned while sent: back from transit; paid, then returned: back from cash with its commission", async () => {
    const firm = await firmWith("1000.00", { commission_withdrawal: "1.00+0.50" });
    const first = await sentPayout(firm, "200.00");
    expect(await figures(firm)).toEqual(["800.00", "200.00", "800.00"]);
    const back = { direction: "credit", is_return: true, return_reason: "AC04" };
    const returned = await typedLine({ amount: "200.00", end_to_end_id: first.paymentId, ...back });
    expect(returned).toMatchObject({ payout_outcome: "return" });
    expect((await items(first.batch))[0]?.stage).toBe("returned");
    expect(await figures(firm)).toEqual(["1000.00", "0.00", "1000.00"]);

    // Batched again (a new payment id), sent, paid, then the payee's bank sends it back.
    const made = await batch(firm);
    expect(made.status).toBe(201);
    expect((await markSent(made.json.batch)).status).toBe(200);
    const [second] = await items(made.json.batch);
    await typedLine({ amount: "200.00", direction: "debit", end_to_end_id: second?.payment_id });
    expect(await statusOf(server, first.id)).toBe("approved");
    expect(await figures(firm)).toEqual(["797.50", "0.00", "797.50"]);
    await typedLine({ amount: "200.00", end_to_end_id: second?.payment_id, ...back });
    expect((await items(made.json.batch))[0]).toMatchObject({ stage: "paid", flag: "returned_after_paid" });
    expect(await figures(firm)).toEqual(["1000.00", "0.00", "1000.00"]);
    // The merchant's answer stands; a second line of the same return moves nothing.
    expect(await statusOf(server, first.id)).toBe("approved");
    await typedLine({
      amount: "200.00",
      end_to_end_id: second?.payment_id,
      description: "once more",
      ...back,
    });
    expect(await figures(firm)).toEqual(["1000.00", "0.00", "1000.00"]);
    const keys = await postingKeys(firm);
    for (const key of [
      `payout-sent:${first.attempt}`,
      `payout-returned:${first.attempt}`,
      `payout-sent:${second?.attempt}`,
      `payout-paid:${second?.attempt}`,
      `payout-returned:${second?.attempt}`,
    ])
      expect(
        keys.filter((k) => k === key),
        key,
      ).toHaveLength(1);
  });

  /** An account paying through a payout channel the simulator plays, whose "paid" approves. */
  async function channelAccount(behaviour: "payout-paid" | "payout-refuse") {
    const sim = await startChannelSimulator({ payoutBehaviour: { kind: behaviour } });
    sims.push(sim);
    const code = `LG${sims.length}${kind.slice(0, 2).toUpperCase()}`;
    const channel = await server.admin("POST", "/admin/v1/channels", { code, kind: "http", url: sim.url });
    expect(channel.status).toBe(201);
    const made = await server.admin("POST", "/admin/v1/accounts", {
      bank_name: "Kanal Bankası",
      holder_name: "Ödeme Hizmetleri A.Ş.",
      iban: "TR330006100519786457841326",
      channel: code,
    });
    expect(made.status).toBe(201);
    const final = await server.admin("PATCH", "/admin/v1/payouts/settings", {
      account: made.json.id,
      channel_final_approves: true,
    });
    expect(final.status).toBe(200);
    return made.json.id as number;
  }

  it("through a payout channel: released is sent, its 'paid' moves it out of transit; its refusal back to the firm", async () => {
    const firm = await firmWith("500.00");
    const paying = await channelAccount("payout-paid");
    const paidId = await pendingWithdrawal(server, firm, { amount: "120.00" });
    const made = await batch(firm, paying);
    const released = await server.admin("POST", `/admin/v1/payouts/batches/${made.json.batch}/release`, {});
    expect(released.json.outcomes).toMatchObject({ paid: 1 });
    expect(await statusOf(server, paidId)).toBe("approved");
    expect(await figures(firm)).toEqual(["380.00", "0.00", "380.00"]);

    const refusing = await channelAccount("payout-refuse");
    await pendingWithdrawal(server, firm, { amount: "80.00" });
    const other = await batch(firm, refusing);
    const refused = await server.admin("POST", `/admin/v1/payouts/batches/${other.json.batch}/release`, {});
    expect(refused.json.outcomes).toMatchObject({ failed: 1 });
    expect(await figures(firm)).toEqual(["380.00", "0.00", "380.00"]);
    const [attempt] = await items(other.json.batch);
    const keys = await postingKeys(firm);
    expect(keys).toContain(`payout-sent:${attempt?.attempt}`);
    expect(keys).toContain(`payout-returned:${attempt?.attempt}`);
  });

  it("the guard: what the balance does not cover is left out with its reason, oldest first; an overdraft lets it through, the guard off lets all", async () => {
    const firm = await firmWith("500.00");
    const big = await pendingWithdrawal(server, firm, { amount: "400.00" });
    const over = await pendingWithdrawal(server, firm, { amount: "150.00" });
    const small = await pendingWithdrawal(server, firm, { amount: "100.00" });
    const shown = await waiting(firm);
    expect(shown.map((w) => [w.transaction_id, w.not_batchable_code])).toEqual([
      [big, null],
      [over, "over_balance"],
      [small, null],
    ]);
    expect(shown[1]?.not_batchable).toBe("the firm's balance (with its overdraft) does not cover it");
    const made = await batch(firm);
    expect([made.status, made.json.payouts, made.json.total]).toEqual([201, 2, "500.00"]);
    expect(await figures(firm)).toEqual(["500.00", "0.00", "0.00"]);
    const none = await batch(firm);
    expect([none.status, none.json.code]).toEqual([422, "payout_batch_empty"]);
    expect(none.json.message).toBe("1 the firm's balance (with its overdraft) does not cover it");

    // An overdraft of 200.00: the balance may go to -200.00, and the 150.00 fits.
    await server.admin("PATCH", `/admin/v1/firms/${firm.id}`, { overdraft: "200.00" });
    expect((await waiting(firm))[0]?.not_batchable_code).toBeNull();
    const through = await batch(firm);
    expect([through.status, through.json.total]).toEqual([201, "150.00"]);
    expect(await figures(firm)).toEqual(["500.00", "0.00", "-150.00"]);
    // 50.00 of overdraft left: a 60.00 waits, the guard turned off lets it go.
    await pendingWithdrawal(server, firm, { amount: "60.00" });
    expect((await waiting(firm))[0]?.not_batchable_code).toBe("over_balance");
    await server.admin("PATCH", "/admin/v1/payouts/settings", { firm: firm.id, balance_guard: false });
    expect((await batch(firm)).status).toBe(201);
  });

  it("by hand: an operator's approval beyond the balance is refused, an admin's stands; a test firm is not guarded", async () => {
    const firm = await firmWith("100.00");
    await server.admin("PATCH", "/admin/v1/payouts/settings", { firm: firm.id, payouts: false });
    const id = await pendingWithdrawal(server, firm, { amount: "150.00" });
    const refused = await operator.call("POST", `/ops/api/transactions/${id}/approve`, {});
    expect([refused.status, refused.json.code]).toEqual([409, "payout_over_balance"]);
    expect(refused.json.message).toBe(
      "the firm's balance does not cover this withdrawal: 150.00 asked, 100.00 available (balance 100.00, 0.00 held in batches not yet sent), overdraft 0.00; an admin may approve it, or give the firm an overdraft",
    );
    expect(await statusOf(server, id)).toBe("pending");
    await server.admin("PATCH", `/admin/v1/firms/${firm.id}`, { overdraft: "50.00" });
    const covered = await operator.call("POST", `/ops/api/transactions/${id}/approve`, {});
    expect(covered.status, JSON.stringify(covered.json)).toBe(200);
    expect(await figures(firm)).toEqual(["-50.00", "150.00", "-50.00"]);
    // Beyond the overdraft now: an operator is refused, an admin records it.
    const next = await pendingWithdrawal(server, firm, { amount: "10.00" });
    expect((await operator.call("POST", `/ops/api/transactions/${next}/approve`, {})).json.code).toBe(
      "payout_over_balance",
    );
    expect(
      (await server.admin("POST", `/admin/v1/transactions/${next}/approve`, { actor: "boss" })).status,
    ).toBe(200);
    expect(await figures(firm)).toEqual(["-60.00", "160.00", "-60.00"]);
    // A rejection is never guarded.
    const rejected = await pendingWithdrawal(server, firm, { amount: "10.00" });
    expect((await operator.call("POST", `/ops/api/transactions/${rejected}/reject`, {})).status).toBe(200);

    const test = await createFirm(server, { sandbox: true });
    const body = { amount: "75.00" };
    const testId = await pendingWithdrawal(server, test, body);
    const own = await send(server, test, {
      path: `/paymentapi/v1/sandbox/transactions/${testId}/approve`,
      body: {},
    });
    expect(own.status, own.text).toBe(200);
    expect(await figures(test)).toEqual(["0.00", "0.00", "0.00"]);
  });
});
