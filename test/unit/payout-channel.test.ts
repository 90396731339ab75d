import { createHmac } from "node:crypto";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  createPayoutChannelClient,
  type PayoutChannelInfo,
  type PayoutOrder,
} from "../../src/payouts/channels/payout-channel.js";
import { type ChannelSimulator, startChannelSimulator } from "../../src/routing/channels/simulator.js";

/**
 * The payout client against the channel simulator (a real local HTTP server playing the partner).
 * The simulator verifies every request's signature with the channel's secret, as a partner does,
 * and its payouts move on an injected clock: "paid a second later" is a step of `now`.
 */
describe("payout channel client", () => {
  const secret = "p".repeat(32);
  let now = 1_800_000_000_000;
  let sim: ChannelSimulator;
  let channel: PayoutChannelInfo;
  const client = createPayoutChannelClient({ allowPrivate: true });
  let serial = 0;
  const order = (over: Partial<PayoutOrder> = {}): PayoutOrder => ({
    paymentId: `PI${String(++serial).padStart(6, "0")}`,
    amountMinor: 123_450,
    iban: "TR330006100519786457841326",
    name: "Ayşe Yılmaz",
    description: "Çekim W-1",
    method: "FAST",
    ...over,
  });

  beforeAll(async () => {
    sim = await startChannelSimulator({ secret, clock: () => now });
    channel = { id: 1, code: "PAYSIM", url: sim.url, secret, timeoutMs: 2_000 };
  });
  afterEach(() => sim.behave({ kind: "payout-accept" }));
  afterAll(async () => {
    await client.close();
    await sim.close();
  });

  it("sends one signed payout whose idempotency key is its payment id, amounts in the contract's form", async () => {
    const o = order();
    expect(await client.send(channel, o)).toEqual({ outcome: "accepted" });
    const ask = sim.payoutAsks.at(-1);
    expect(ask?.headers["idempotency-key"]).toBe(o.paymentId);
    expect(JSON.parse(ask?.raw ?? "")).toEqual({
      action: "payout",
      payment_id: o.paymentId,
      amount: "1234.50",
      currency: "TRY",
      iban: o.iban,
      name: "Ayşe Yılmaz",
      description: "Çekim W-1",
      method: "FAST",
    });
    // As a partner checks it: HMAC-SHA256(secret, X-Timestamp LF raw body), lowercase hex.
    const expected = createHmac("sha256", secret)
      .update(`${ask?.headers["x-timestamp"]}\n${ask?.raw}`)
      .digest("hex");
    expect(ask?.headers["x-signature"]).toBe(expected);
    expect(sim.asks).toHaveLength(0);
  });

  it("a request signed with another secret is refused by the partner: unknown, and nothing is paid", async () => {
    const o = order();
    const answer = await client.send({ ...channel, secret: "x".repeat(32) }, o);
    expect(answer).toMatchObject({ outcome: "unknown", cause: "http_status", why: "HTTP 401" });
    expect(sim.payouts.has(o.paymentId)).toBe(false);
  });

  it("accepted: the status says accepted until the partner pays, then paid, once", async () => {
    sim.behave({ kind: "payout-accept", delayMs: 5_000 });
    const o = order();
    expect(await client.send(channel, o)).toEqual({ outcome: "accepted" });
    expect(await client.status(channel, o)).toEqual({ outcome: "accepted" });
    expect(sim.payouts.get(o.paymentId)).toMatchObject({ paid: 0, status: "accepted" });
    now += 5_000;
    expect(await client.status(channel, o)).toEqual({ outcome: "paid" });
    expect(sim.payouts.get(o.paymentId)).toMatchObject({ paid: 1, status: "paid", amountMinor: 123_450 });
    expect(sim.payoutAsks.at(-1)?.headers["idempotency-key"]).toBe(`payout_status:${o.paymentId}`);
  });

  it("paid at once (FAST): final", async () => {
    sim.behave({ kind: "payout-paid" });
    const o = order();
    expect(await client.send(channel, o)).toEqual({ outcome: "paid" });
    expect(sim.payouts.get(o.paymentId)?.paid).toBe(1);
  });

  it("refused: the reason comes clean (no control or direction characters), and nothing is paid", async () => {
    sim.behave({ kind: "payout-refuse" });
    const plain = order();
    expect(await client.send(channel, plain)).toEqual({ outcome: "refused", reason: "AC01 wrong IBAN" });
    sim.behave({ kind: "payout-refuse", reason: "AC01\u202e wrong\u0000\nIBAN" });
    const dirty = order();
    expect(await client.send(channel, dirty)).toEqual({ outcome: "refused", reason: "AC01 wrong IBAN" });
    expect(sim.payouts.get(dirty.paymentId)).toMatchObject({ paid: 0, status: "refused" });
    // A repeat is answered the same, whatever the partner would do with a new payout.
    sim.behave({ kind: "payout-paid" });
    expect(await client.send(channel, plain)).toEqual({ outcome: "refused", reason: "AC01 wrong IBAN" });
  });

  it("hang: unknown within the channel's timeout; the status, once it answers, tells the truth", async () => {
    sim.behave({ kind: "payout-hang" });
    const o = order();
    const t0 = performance.now();
    const answer = await client.send({ ...channel, timeoutMs: 300 }, o);
    expect(performance.now() - t0).toBeLessThan(1_500);
    expect(answer).toMatchObject({ outcome: "unknown", cause: "timeout" });
    expect(await client.status({ ...channel, timeoutMs: 300 }, o)).toMatchObject({
      outcome: "unknown",
      cause: "timeout",
    });
    sim.behave({ kind: "payout-paid" });
    expect(await client.status(channel, o)).toEqual({ outcome: "paid" });
    expect(sim.payouts.get(o.paymentId)).toMatchObject({ paid: 1, sends: 1 });
  });

  it("a 5xx, a malformed or an oversized answer is unknown, and the partner that took nothing says so", async () => {
    const o = order();
    for (const [fail, cause] of [
      [{ status: 503 }, "http_status"],
      [{ status: 200, body: "paid" }, "malformed"],
      [{ status: 200, body: "[]" }, "malformed"],
      [{ status: 200, body: '{"status":"done"}' }, "malformed"],
      // Only a status query may say "unknown": as a payout's answer it is malformed.
      [{ status: 200, body: '{"status":"unknown"}' }, "malformed"],
      [{ status: 200, body: `{"status":"paid","pad":"${"x".repeat(17_000)}"}` }, "malformed"],
    ] as const) {
      sim.behave({ kind: "payout-fail", ...fail });
      expect(await client.send(channel, o), JSON.stringify(fail).slice(0, 60)).toMatchObject({
        outcome: "unknown",
        cause,
      });
    }
    sim.behave({ kind: "payout-paid" });
    expect(await client.status(channel, o)).toMatchObject({ outcome: "unknown", cause: "not_found" });
    expect(sim.payouts.has(o.paymentId)).toBe(false);
  });

  it("an answer naming another amount or payment is a mismatch, never an outcome", async () => {
    sim.behave({ kind: "payout-paid" });
    const o = order();
    expect(await client.send(channel, o)).toEqual({ outcome: "paid" });
    // The same payment id with another amount: the partner answers about the payout it holds.
    const other = { ...o, amountMinor: 99_900 };
    expect(await client.send(channel, other)).toMatchObject({ outcome: "mismatch", field: "amount" });
    expect(await client.status(channel, other)).toMatchObject({ outcome: "mismatch", field: "amount" });
    expect(sim.payouts.get(o.paymentId)).toMatchObject({ paid: 1, sends: 2, amountMinor: 123_450 });
    sim.behave({ kind: "payout-fail", status: 200, body: '{"status":"paid","payment_id":"PI999999"}' });
    expect(await client.status(channel, o)).toMatchObject({ outcome: "mismatch", field: "payment_id" });
    sim.behave({ kind: "payout-fail", status: 200, body: '{"status":"paid","amount":1234.5}' });
    expect(await client.status(channel, o)).toMatchObject({ outcome: "mismatch", field: "amount" });
    // The same amount written otherwise is the same amount.
    sim.behave({ kind: "payout-fail", status: 200, body: '{"status":"paid","amount":"1234.5"}' });
    expect(await client.status(channel, o)).toEqual({ outcome: "paid" });
  });

  it("twice: the first answer is lost after paying; repeats, even at once, learn paid and never pay again", async () => {
    sim.behave({ kind: "payout-twice" });
    const o = order();
    expect(await client.send(channel, o)).toMatchObject({ outcome: "unknown", cause: "network" });
    const repeats = await Promise.all([client.send(channel, o), client.send(channel, o)]);
    expect(repeats).toEqual([{ outcome: "paid" }, { outcome: "paid" }]);
    expect(await client.status(channel, o)).toEqual({ outcome: "paid" });
    expect(sim.payouts.get(o.paymentId)).toMatchObject({ paid: 1, sends: 3, status: "paid" });
    const both = order();
    await Promise.all([client.send(channel, both), client.send(channel, both)]);
    expect(sim.payouts.get(both.paymentId)).toMatchObject({ paid: 1, sends: 2 });
  });

  it("returned: paid now, and an hour later the status says returned with the bank's reason", async () => {
    sim.behave({ kind: "payout-return" });
    const o = order({ method: "EFT" });
    expect(await client.send(channel, o)).toEqual({ outcome: "paid" });
    now += 59 * 60_000;
    expect(await client.status(channel, o)).toEqual({ outcome: "paid" });
    now += 60_000;
    expect(await client.status(channel, o)).toEqual({ outcome: "returned", reason: "AC04 closed account" });
    expect(sim.payouts.get(o.paymentId)).toMatchObject({ paid: 1, status: "returned" });
  });

  it("never connects to a private address unless allowed: unknown, not sent", async () => {
    const guarded = createPayoutChannelClient({ allowPrivate: false });
    try {
      const o = order();
      const answer = await guarded.send(channel, o);
      expect(answer).toMatchObject({ outcome: "unknown", cause: "not_sent" });
      expect(answer.outcome === "unknown" && answer.why).toMatch(/^address not allowed: /);
      expect(await guarded.status(channel, o)).toMatchObject({ outcome: "unknown", cause: "not_sent" });
      expect(sim.payoutAsks.some((a) => a.body.payment_id === o.paymentId)).toBe(false);
    } finally {
      await guarded.close();
    }
  });
});
