import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OVERDUE_FAST_MS } from "../../src/payouts/rules.js";
import {
  type ChannelSimulator,
  type SimPayoutBehaviour,
  startChannelSimulator,
} from "../../src/routing/channels/simulator.js";
import { STORES, startTestServer, type TestServer } from "../support/harness.js";
import { createFirm, send, statusOf, type TestFirm, withdrawalBody } from "../support/merchant.js";
import { type Receiver, startReceiver } from "../support/receiver.js";

/**
 * Payouts through a payout channel (issue 47, point 5), through the real server: the simulator
 * plays the partner's API on a local port, the test receiver the merchant's callback URL. Each case
 * has a firm, a channel and an account of its own; the watch runs every 25 ms, and the clock moves
 * only for the overdue case (last).
 */
describe.each(STORES)("payout channels (%s)", (kind) => {
  let server: TestServer;
  let receiver: Receiver;
  const sims: ChannelSimulator[] = [];
  let seq = 0;

  beforeAll(async () => {
    server = await startTestServer(kind, {
      PAYINTAKE_CALLBACK_POLL_MS: "60000",
      PAYINTAKE_PAYOUT_WATCH_INTERVAL_MS: "25",
      LOG_LEVEL: "warn",
    });
    receiver = await startReceiver();
    // Firms' balances are test/api/payout-ledger.test.ts's: here payouts are not held to them.
    expect((await server.admin("PATCH", "/admin/v1/payouts/settings", { balance_guard: false })).status).toBe(
      200,
    );
  });
  afterAll(async () => {
    for (const sim of sims) await sim.close();
    await receiver?.close();
    await server?.close();
  });

  interface Case {
    sim: ChannelSimulator;
    firm: TestFirm;
    account: number;
  }

  /** A partner on a channel of its own, an account paid through it, and a firm paid in batches. */
  async function partner(
    behaviour: SimPayoutBehaviour,
    opts: { finalApproves: boolean; timeoutMs?: number },
  ): Promise<Case> {
    seq++;
    const sim = await startChannelSimulator({ payoutBehaviour: behaviour });
    sims.push(sim);
    const code = `PAY${seq}${kind.slice(0, 2).toUpperCase()}`;
    const channel = await server.admin("POST", "/admin/v1/channels", {
      code,
      kind: "http",
      url: sim.url,
      timeout_ms: opts.timeoutMs ?? 2_000,
    });
    expect(channel.status).toBe(201);
    const account = await server.admin("POST", "/admin/v1/accounts", {
      bank_name: `Payout bank ${seq}`,
      holder_name: "Ödeme Hizmetleri A.Ş.",
      iban: "TR330006100519786457841326",
      channel: code,
    });
    expect(account.status).toBe(201);
    const firm = await createFirm(server, { webhook_url: receiver.url });
    await settings({ firm: firm.id, payouts: true });
    await settings({ account: account.json.id, channel_final_approves: opts.finalApproves });
    return { sim, firm, account: account.json.id };
  }

  async function settings(body: Record<string, unknown>) {
    const res = await server.admin("PATCH", "/admin/v1/payouts/settings", body);
    expect(res.status).toBe(200);
  }

  /** A pending withdrawal of the firm: its transaction id and reference. */
  async function withdrawal(firm: TestFirm, amount = "250.50") {
    const body = withdrawalBody({ amount });
    expect((await send(server, firm, { path: "/paymentapi/v1/withdrawals", body })).status).toBe(200);
    const q = await send(server, firm, {
      path: `/paymentapi/v1/transactions/by-reference/${body.reference}`,
    });
    return { id: q.json.data.id as number, reference: body.reference as string };
  }

  async function batchOf(c: Case): Promise<number> {
    const res = await server.admin("POST", "/admin/v1/payouts/batches", {
      account: c.account,
      firm: c.firm.id,
    });
    expect(res.status, JSON.stringify(res.json)).toBe(201);
    expect(res.json.stage).toBe("batched");
    return res.json.batch as number;
  }

  const release = (batch: number) =>
    server.admin("POST", `/admin/v1/payouts/batches/${batch}/release`, { actor: "cli:ayse" });
  const attemptsOf = async (batch: number) =>
    (await server.admin("GET", `/admin/v1/payouts/batches/${batch}`)).json.items as Array<{
      transaction_id: number;
      payment_id: string;
      stage: string;
      flag: string | null;
      reason: string | null;
    }>;
  /** A line an operator types on the paying account (a debit or a credit), and the line as stored. */
  async function typedLine(account: number, body: Record<string, unknown>) {
    const res = await server.admin("POST", `/admin/v1/accounts/${account}/statement-lines`, {
      booked_at: new Date(server.clock.now()).toISOString(),
      ...body,
    });
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    const id = res.json.results[0].id as number;
    return (await server.admin("GET", `/admin/v1/statement-lines/${id}`)).json;
  }
  const audit = async (action: string) =>
    (await server.admin("GET", `/admin/v1/audit?action=${action}`)).json as Array<{
      entity_id: string;
      actor: string;
      after: Record<string, unknown>;
    }>;

  it("paid where the account allows it: approved at once, the merchant's callback follows quickly", async () => {
    const c = await partner({ kind: "payout-paid" }, { finalApproves: true });
    const w = await withdrawal(c.firm);
    const batch = await batchOf(c);
    const before = receiver.received.length;

    const res = await release(batch);
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    expect(res.json.outcomes).toMatchObject({ paid: 1, unknown: 0, mismatch: 0 });
    expect(res.json.stage).toBe("closed");
    expect(res.json.items[0]).toMatchObject({ stage: "paid", flag: null });
    expect(await statusOf(server, w.id)).toBe("approved");
    // The callback worker polls once a minute here: only the poke after the payment sends it now.
    const got = await receiver.waitFor(before + 1);
    expect(got.map((r) => JSON.parse(r.body).reference)).toContain(w.reference);

    // The order as the partner got it: the payment id is the idempotency key, the text names both.
    const payment = res.json.items[0].payment_id as string;
    const ask = c.sim.payoutAsks.find((a) => a.body.payment_id === payment);
    expect(ask?.headers["idempotency-key"]).toBe(payment);
    expect(ask?.body).toMatchObject({ action: "payout", amount: "250.50", method: "FAST" });
    expect(String(ask?.body.description)).toBe(`${payment} ${w.reference}`);
    const paid = await audit("payout.paid");
    expect(paid.find((e) => e.entity_id === String(w.id))?.actor).toBe("service:payout-channel");

    // Released once: a second release is refused, and nothing is sent again.
    const again = await release(batch);
    expect(again.status).toBe(409);
    expect(again.json.code).toBe("payout_batch_stage");
    expect(c.sim.payouts.get(payment)).toMatchObject({ sends: 1, paid: 1 });
  });

  it("the bank's debit of a payout the channel paid is its proof, never a second payment", async () => {
    const c = await partner({ kind: "payout-paid" }, { finalApproves: true });
    const w = await withdrawal(c.firm, "321.00");
    const batch = await batchOf(c);
    expect((await release(batch)).json.outcomes).toMatchObject({ paid: 1 });
    const payment = (await attemptsOf(batch))[0]?.payment_id;
    const line = await typedLine(c.account, { amount: "321.00", direction: "debit", end_to_end_id: payment });
    expect(line.payout_outcome).toBe("paid");
    expect((await attemptsOf(batch))[0]).toMatchObject({ stage: "paid", flag: null });
    // The same debit named again by another line is a second payment: raised.
    const again = await typedLine(c.account, {
      amount: "321.00",
      direction: "debit",
      end_to_end_id: payment,
      description: "again",
    });
    expect(again.payout_outcome).toBe("double_payment");
    expect((await attemptsOf(batch))[0]?.flag).toBe("double_payment");
    expect(await statusOf(server, w.id)).toBe("approved");
  });

  it("paid where the account does not allow it: stays sent for the statement", async () => {
    const c = await partner({ kind: "payout-paid" }, { finalApproves: false });
    const w = await withdrawal(c.firm);
    const batch = await batchOf(c);
    const res = await release(batch);
    expect(res.status).toBe(200);
    expect(res.json.outcomes).toMatchObject({ awaiting_statement: 1, paid: 0 });
    // The watch asks again and again (every 25 ms here); it still leaves the proof to the statement.
    await expect
      .poll(() => c.sim.payoutAsks.filter((a) => a.body.action === "payout_status").length)
      .toBeGreaterThan(1);
    expect((await attemptsOf(batch))[0]).toMatchObject({ stage: "sent", flag: null });
    expect(await statusOf(server, w.id)).toBe("pending");
  });

  it("refused: failed with the channel's reason, back among the waiting withdrawals", async () => {
    const c = await partner({ kind: "payout-refuse" }, { finalApproves: true });
    const w = await withdrawal(c.firm);
    const batch = await batchOf(c);
    const res = await release(batch);
    expect(res.json.outcomes).toMatchObject({ failed: 1 });
    expect(res.json.items[0]).toMatchObject({ stage: "failed", reason: "AC01 wrong IBAN" });
    expect(res.json.stage).toBe("closed");
    const waiting = (await server.admin("GET", `/admin/v1/payouts/waiting?firm=${c.firm.id}`)).json.waiting;
    expect(waiting).toEqual([
      expect.objectContaining({
        transaction_id: w.id,
        last_attempt: { stage: "failed", reason: "AC01 wrong IBAN" },
      }),
    ]);
    expect(await statusOf(server, w.id)).toBe("pending");
  });

  it("unknown (the partner hangs): flagged, never sent again; the watch's status query settles it", async () => {
    const c = await partner({ kind: "payout-hang" }, { finalApproves: true, timeoutMs: 300 });
    const w = await withdrawal(c.firm);
    const batch = await batchOf(c);
    const res = await release(batch);
    expect(res.json.outcomes).toMatchObject({ unknown: 1 });
    expect(res.json.items[0]).toMatchObject({ stage: "sent", flag: "channel_unknown" });
    const payment = res.json.items[0].payment_id as string;
    const flagged = await audit("payout.channel_unknown");
    expect(flagged.find((e) => e.entity_id === String(w.id))?.after).toMatchObject({ cause: "timeout" });

    // The partner speaks again: the next status query learns "paid", and that approves it.
    c.sim.behave({ kind: "payout-paid" });
    await expect.poll(() => statusOf(server, w.id)).toBe("approved");
    expect((await attemptsOf(batch))[0]).toMatchObject({ stage: "paid", flag: null });
    const sent = c.sim.payoutAsks.filter((a) => a.body.action === "payout" && a.body.payment_id === payment);
    expect(sent).toHaveLength(1);
    expect(c.sim.payouts.get(payment)).toMatchObject({ sends: 1, paid: 1 });
  });

  it("returned later: back to the operators with the bank's reason", async () => {
    // Paid at first (left for the statement here); the payee's bank sends it back soon after.
    const c = await partner({ kind: "payout-return", delayMs: 100 }, { finalApproves: false });
    const w = await withdrawal(c.firm);
    const batch = await batchOf(c);
    expect((await release(batch)).json.outcomes).toMatchObject({ awaiting_statement: 1 });
    await expect.poll(async () => (await attemptsOf(batch))[0]?.stage).toBe("returned");
    expect((await attemptsOf(batch))[0]?.reason).toBe("AC04 closed account");
    expect(await statusOf(server, w.id)).toBe("pending");
    // The bank's credit of that return, arriving after the channel's word, is that return's line.
    const payment = (await attemptsOf(batch))[0]?.payment_id;
    const back = await typedLine(c.account, {
      amount: "250.50",
      direction: "credit",
      end_to_end_id: payment,
      is_return: true,
      return_reason: "AC04",
    });
    expect(back).toMatchObject({ payout_outcome: "return", state: "not_ours" });
  });

  it("another amount in the answer: a mismatch flagged, never approved", async () => {
    const body = JSON.stringify({ status: "paid", amount: "1.00" });
    const c = await partner({ kind: "payout-fail", status: 200, body }, { finalApproves: true });
    const w = await withdrawal(c.firm);
    const batch = await batchOf(c);
    const res = await release(batch);
    expect(res.json.outcomes).toMatchObject({ mismatch: 1, paid: 0 });
    expect(res.json.items[0]).toMatchObject({ stage: "sent", flag: "channel_mismatch" });
    // The watch asks nothing of it and approves nothing: operators look. Another partner's payout,
    // accepted and never paid, is asked each round: two more of its questions are two more rounds.
    const asks = c.sim.payoutAsks.length;
    const other = await partner(
      { kind: "payout-accept", delayMs: 24 * OVERDUE_FAST_MS },
      { finalApproves: true },
    );
    await withdrawal(other.firm);
    expect((await release(await batchOf(other))).json.outcomes).toMatchObject({ accepted: 1 });
    await expect.poll(() => other.sim.payoutAsks.length).toBeGreaterThan(3);
    expect(c.sim.payoutAsks.length).toBe(asks);
    expect(await statusOf(server, w.id)).toBe("pending");
  });

  it("a manual account's batch is not released through a channel", async () => {
    const account = await server.admin("POST", "/admin/v1/accounts", {
      bank_name: "Manual payout bank",
      holder_name: "Ödeme Hizmetleri A.Ş.",
      iban: "TR330006100519786457841326",
    });
    const firm = await createFirm(server, { webhook_url: receiver.url });
    await settings({ firm: firm.id, payouts: true });
    await withdrawal(firm);
    const created = await server.admin("POST", "/admin/v1/payouts/batches", {
      account: account.json.id,
      firm: firm.id,
    });
    const anonymous = await request(`${server.url}/admin/v1/payouts/batches/${created.json.batch}/release`, {
      method: "POST",
    });
    expect(anonymous.statusCode).toBe(401);
    await anonymous.body.dump();
    const res = await release(created.json.batch);
    expect(res.status).toBe(422);
    expect(res.json.code).toBe("payout_account_unusable");
    expect(res.json.message).toContain("mark it sent");
    expect((await server.admin("GET", `/admin/v1/payouts/batches/${created.json.batch}`)).json.stage).toBe(
      "batched",
    );
  });

  it("a release cut short after the batch was marked sent: the watch asks, and sends it once under its own id", async () => {
    const c = await partner({ kind: "payout-paid" }, { finalApproves: true });
    const w = await withdrawal(c.firm);
    const batch = await batchOf(c);
    // As a process killed between marking the batch sent and its first send leaves it.
    expect((await server.admin("POST", `/admin/v1/payouts/batches/${batch}/sent`, {})).status).toBe(200);
    const payment = (await attemptsOf(batch))[0]?.payment_id as string;
    // The watch asks first; the partner never heard of it, so it is sent under the same payment id.
    await expect.poll(async () => (await attemptsOf(batch))[0]?.stage).toBe("paid");
    const asks = c.sim.payoutAsks.filter((a) => a.body.payment_id === payment);
    expect(asks[0]?.body.action).toBe("payout_status");
    expect(asks.filter((a) => a.body.action === "payout")).toHaveLength(1);
    expect(c.sim.payouts.get(payment)).toMatchObject({ sends: 1, paid: 1 });
    expect(await statusOf(server, w.id)).toBe("approved");
    // Nor does a release send it again: the batch is sent already.
    expect((await release(batch)).json.code).toBe("payout_batch_stage");
  });

  it("overdue: a sent payout whose debit has not shown in an hour (FAST) is flagged once, audited", async () => {
    const c = await partner(
      { kind: "payout-accept", delayMs: 24 * OVERDUE_FAST_MS },
      { finalApproves: true },
    );
    const w = await withdrawal(c.firm);
    const batch = await batchOf(c);
    expect((await release(batch)).json.outcomes).toMatchObject({ accepted: 1 });
    expect((await attemptsOf(batch))[0]?.flag).toBeNull();

    server.clock.advance(OVERDUE_FAST_MS + 1_000);
    await expect.poll(async () => (await attemptsOf(batch))[0]?.flag).toBe("overdue");
    const entries = (await audit("payout.overdue")).filter((e) => e.entity_id === String(w.id));
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ actor: "service:payout-watch", after: { method: "FAST" } });
    expect((await attemptsOf(batch))[0]?.stage).toBe("sent");
    expect(await statusOf(server, w.id)).toBe("pending");
  });
});
