import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPayoutChannelClient } from "../../src/payouts/channels/payout-channel.js";
import { createChannelClient } from "../../src/routing/channels/http-channel.js";
import {
  type ChannelSimulator,
  payoutBehaviourFrom,
  startChannelSimulator,
} from "../../src/routing/channels/simulator.js";
import { accountCandidate } from "../support/accounts.js";

/** The simulator's payout side beside its deposit side: two behaviours, one channel. */
describe("channel simulator: payouts", () => {
  let sim: ChannelSimulator;
  beforeAll(async () => {
    sim = await startChannelSimulator({
      behaviour: { kind: "decline", reason: "no" },
      payoutBehaviour: { kind: "payout-paid" },
    });
  });
  afterAll(() => sim.close());

  it("keeps deposits and payouts apart: each behaviour set alone, each request listed apart", async () => {
    const asks = createChannelClient({ allowPrivate: true });
    const payouts = createPayoutChannelClient({ allowPrivate: true });
    const channel = {
      id: 1,
      code: "SIM",
      kind: "http" as const,
      url: sim.url,
      secret: "s".repeat(32),
      timeoutMs: 2_000,
    };
    const request = {
      askId: "1:ORD-1",
      amountMinor: 15_000,
      bankCode: "AKBANK",
      method: "fast",
      userId: "U-1",
      fullName: "A B",
    };
    const payout = {
      paymentId: "PI1",
      amountMinor: 100,
      iban: "TR1",
      name: "A B",
      description: "W",
      method: "FAST" as const,
    };
    try {
      expect(await asks.ask(channel, request, accountCandidate(), 2_000)).toMatchObject({
        outcome: "decline",
      });
      expect(await payouts.send(channel, payout)).toEqual({ outcome: "paid" });
      sim.behave({ kind: "accept" });
      expect(await asks.ask(channel, request, accountCandidate(), 2_000)).toEqual({ outcome: "accept" });
      sim.behave({ kind: "payout-refuse" });
      expect(await payouts.send(channel, { ...payout, paymentId: "PI2" })).toMatchObject({
        outcome: "refused",
      });
      expect(await asks.ask(channel, { ...request, askId: "1:ORD-2" }, accountCandidate(), 2_000)).toEqual({
        outcome: "accept",
      });
      expect(sim.asks).toHaveLength(3);
      expect(sim.payoutAsks).toHaveLength(2);
      expect([...sim.payouts.keys()]).toEqual(["PI1", "PI2"]);
    } finally {
      await asks.close();
      await payouts.close();
    }
  });

  it("answers a payout without a payment id or a valid amount 400, taking nothing", async () => {
    for (const body of [
      { action: "payout", amount: "1.00" },
      { action: "payout", payment_id: "PI9", amount: "1,00" },
    ]) {
      const res = await fetch(sim.url, { method: "POST", body: JSON.stringify(body) });
      expect(res.status).toBe(400);
    }
    expect(sim.payouts.has("PI9")).toBe(false);
  });

  it("parses the CLI's payout behaviours", () => {
    expect(payoutBehaviourFrom(undefined, undefined)).toEqual({ kind: "payout-accept" });
    expect(payoutBehaviourFrom("accept", 50)).toEqual({ kind: "payout-accept", delayMs: 50 });
    expect(payoutBehaviourFrom("return", 10)).toEqual({ kind: "payout-return", delayMs: 10 });
    for (const name of ["paid", "refuse", "hang", "twice"] as const)
      expect(payoutBehaviourFrom(name, undefined)).toEqual({ kind: `payout-${name}` });
    expect(() => payoutBehaviourFrom("pay", undefined)).toThrow(/--payout-behaviour must be accept, paid/);
    expect(() => payoutBehaviourFrom("accept", -1)).toThrow(/--payout-delay-ms/);
  });
});
