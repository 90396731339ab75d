import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ChannelSimulator, startChannelSimulator } from "../../src/routing/channels/simulator.js";
import { STORES, startTestServer, type TestServer } from "../support/harness.js";
import { addAccount, createFirm, type TestFirm } from "../support/merchant.js";
import { type ConsoleOperator, consoleOperator, pendingWithdrawal } from "../support/payouts.js";

/**
 * What the console's "Ödemeler" needs beyond the batches (issue 47, the screen's first version):
 * flagged payouts across batches and an operator clearing a flag after checking (audited, only on
 * an ended payout, only the flag seen), a batch saying whether its account is on a payout channel,
 * the waiting list's methods judged by the paying account's FAST limit when one is named, and a
 * missing batch said to be missing to the admin token too.
 */
describe.each(STORES)("payouts: needing attention (%s)", (kind) => {
  let server: TestServer;
  let account: { id: number; iban: string };
  let op: ConsoleOperator;
  let viewer: ConsoleOperator;
  const sims: ChannelSimulator[] = [];
  const P = "/admin/v1/payouts";
  const C = "/ops/api/payouts";

  beforeAll(async () => {
    server = await startTestServer(kind, { PAYINTAKE_PAYOUT_WATCH_INTERVAL_MS: "25", LOG_LEVEL: "warn" });
    account = await addAccount(server);
    op = await consoleOperator(server, "operator", "attention-op");
    viewer = await consoleOperator(server, "viewer", "attention-viewer");
    // Firms' balances are test/api/payout-ledger.test.ts's: here payouts are not held to them.
    const on = await server.admin("PATCH", `${P}/settings`, {
      payouts: true,
      balance_guard: false,
      actor: "t",
    });
    expect(on.status).toBe(200);
  });
  afterAll(async () => {
    for (const sim of sims) await sim.close();
    await server?.close();
  });

  const batchOf = async (firm: TestFirm, accountId = account.id) => {
    const made = await server.admin("POST", `${P}/batches`, {
      account: accountId,
      firm: firm.id,
      actor: "t",
    });
    expect(made.status, JSON.stringify(made.json)).toBe(201);
    return made.json.batch as number;
  };
  const shown = async (batch: number) => (await server.admin("GET", `${P}/batches/${batch}`)).json;
  const typed = (body: Record<string, unknown>) =>
    server.admin("POST", `/admin/v1/accounts/${account.id}/statement-lines`, {
      booked_at: new Date(server.clock.now()).toISOString(),
      ...body,
    });
  const flagged = async () => (await viewer.call("GET", `${C}/flagged`)).json.flagged as any[];

  it("a return after approval is flagged, listed across batches with its batch, and cleared once by an operator after checking", async () => {
    const firm = await createFirm(server);
    const tx = await pendingWithdrawal(server, firm, { amount: "47.00" });
    const batch = await batchOf(firm);
    expect((await server.admin("POST", `${P}/batches/${batch}/sent`, { actor: "t" })).status).toBe(200);
    const [item] = (await shown(batch)).items;
    expect(item.batch).toBe(batch);
    const debit = await typed({ amount: "47.00", direction: "debit", end_to_end_id: item.payment_id });
    expect(debit.status, JSON.stringify(debit.json)).toBe(200);
    const back = await typed({
      amount: "47.00",
      direction: "credit",
      end_to_end_id: item.payment_id,
      is_return: true,
      return_reason: "AC04",
    });
    expect(back.status, JSON.stringify(back.json)).toBe(200);

    const listed = (await flagged()).find((a) => a.transaction_id === tx);
    expect(listed).toMatchObject({
      attempt: item.attempt,
      batch,
      stage: "paid",
      flag: "returned_after_paid",
      payment_id: item.payment_id,
      firm_id: firm.id,
      amount: "47.00",
    });
    expect(typeof listed.reference).toBe("string");
    const byToken = await server.admin("GET", `${P}/flagged?limit=500`);
    expect(byToken.json.flagged.map((a: any) => a.attempt)).toContain(item.attempt);

    const clear = (who: ConsoleOperator, body: Record<string, unknown>) =>
      who.call("POST", `${C}/attempts/${item.attempt}/clear-flag`, body);
    expect((await clear(viewer, { flag: "returned_after_paid" })).status).toBe(403);
    const wrong = await clear(op, { flag: "overdue" });
    expect([wrong.status, wrong.json.code]).toEqual([409, "payout_flag_changed"]);
    const missing = await op.call("POST", `${C}/attempts/999999/clear-flag`, { flag: "overdue" });
    expect([missing.status, missing.json.code]).toEqual([404, "payout_attempt_not_found"]);
    const cleared = await clear(op, { flag: "returned_after_paid", note: "merchant told by phone" });
    expect(cleared.status, JSON.stringify(cleared.json)).toBe(200);
    expect(cleared.json).toEqual({ attempt: item.attempt, transaction_id: tx, flag: null });
    expect((await flagged()).some((a) => a.attempt === item.attempt)).toBe(false);
    expect((await shown(batch)).items[0].flag).toBeNull();
    const again = await clear(op, { flag: "returned_after_paid" });
    expect([again.status, again.json.code]).toEqual([409, "payout_flag_changed"]);
    const audit = await server.admin("GET", "/admin/v1/audit?action=payout.flag_cleared");
    const entries = (audit.json as any[]).filter((e) => e.entity_id === String(tx));
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      actor: op.actor,
      before: { flag: "returned_after_paid" },
      after: { attempt: item.attempt, note: "merchant told by phone" },
    });
  });

  it("a batch of an account on an http payout channel names the channel; a sent payout's flag is not cleared by hand", async () => {
    const sim = await startChannelSimulator({ payoutBehaviour: { kind: "payout-hang" } });
    sims.push(sim);
    const code = `ATT${kind.slice(0, 2).toUpperCase()}`;
    const channel = await server.admin("POST", "/admin/v1/channels", {
      code,
      kind: "http",
      url: sim.url,
      timeout_ms: 300,
    });
    expect(channel.status).toBe(201);
    const paying = await server.admin("POST", "/admin/v1/accounts", {
      bank_name: "Kanal Bankası",
      holder_name: "Ödeme Hizmetleri A.Ş.",
      iban: "TR330006100519786457841326",
      channel: code,
    });
    expect(paying.status).toBe(201);
    const firm = await createFirm(server);
    await pendingWithdrawal(server, firm, { amount: "12.00" });
    const batch = await batchOf(firm, paying.json.id);
    expect(await shown(batch)).toMatchObject({ channel: { code }, second_rule: null });
    const listed = (await viewer.call("GET", `${C}/batches?stage=batched`)).json.batches as any[];
    expect(listed.find((b) => b.batch === batch)?.channel).toEqual({ code });
    expect(listed.filter((b) => b.account_id === account.id).every((b) => b.channel === null)).toBe(true);

    const released = await op.call("POST", `${C}/batches/${batch}/release`);
    expect(released.status, JSON.stringify(released.json)).toBe(200);
    expect(released.json).toMatchObject({ channel: { code }, outcomes: { unknown: 1 } });
    const [item] = released.json.items;
    expect(item).toMatchObject({ stage: "sent", flag: "channel_unknown", batch });
    expect((await flagged()).find((a) => a.attempt === item.attempt)).toMatchObject({
      flag: "channel_unknown",
      batch,
    });
    const live = await op.call("POST", `${C}/attempts/${item.attempt}/clear-flag`, {
      flag: "channel_unknown",
    });
    expect([live.status, live.json.code]).toEqual([409, "payout_flag_live"]);
  });

  it("the waiting list judges FAST or EFT by the account named, else by the service's limit", async () => {
    const firm = await createFirm(server);
    const tx = await pendingWithdrawal(server, firm, { amount: "5000.00" });
    const low = await addAccount(server, { bank_name: "Düşük Limit Bankası" });
    const set = await server.admin("PATCH", `${P}/settings`, { account: low.id, fast_limit: "1000.00" });
    expect(set.status).toBe(200);
    const waitingFor = async (q: string) =>
      ((await viewer.call("GET", `${C}/waiting?firm=${firm.id}${q}`)).json.waiting as any[]).find(
        (w) => w.transaction_id === tx,
      );
    expect(await waitingFor("")).toMatchObject({ method: "FAST", method_judged_by: "service" });
    expect(await waitingFor(`&account=${low.id}`)).toMatchObject({
      method: "EFT",
      method_judged_by: "account",
    });
    expect(await waitingFor(`&account=${account.id}`)).toMatchObject({
      method: "FAST",
      method_judged_by: "account",
    });
    const none = await viewer.call("GET", `${C}/waiting?account=999999`);
    expect([none.status, none.json.code]).toEqual([404, "account_not_found"]);
    // The batch uses the same account's limit.
    const batch = await batchOf(firm, low.id);
    expect((await shown(batch)).items[0].method).toBe("EFT");
  });

  it("a batch that is not there is not found, for the admin token's approval too", async () => {
    const token = await server.admin("POST", `${P}/batches/999999/approve`, { actor: "someone" });
    expect([token.status, token.json.code]).toEqual([404, "payout_batch_not_found"]);
    const byConsole = await op.call("POST", `${C}/batches/999999/approve`);
    expect([byConsole.status, byConsole.json.code]).toEqual([404, "payout_batch_not_found"]);
  });
});
