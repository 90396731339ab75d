import { describe, expect, it } from "vitest";
import type { AccountCandidate, ChannelInfo } from "../../src/routing/account-order.js";
import { DEFAULT_BREAKER, type ProbeResult } from "../../src/routing/breaker.js";
import { type AskResult, createRouter, stepChannelLabel } from "../../src/routing/router.js";

const channel: ChannelInfo = {
  id: 7,
  code: "CH",
  kind: "http",
  url: "http://x",
  secret: "s",
  timeoutMs: 100,
};
const account: AccountCandidate = {
  id: 1,
  bankName: "B",
  holderName: "H",
  iban: "TR00",
  minAmount: null,
  maxAmount: null,
  active: true,
  lastAssignedAt: 0,
  channelId: 7,
};
const request = {
  askId: "1:r",
  amountMinor: 100,
  bankCode: "",
  method: "fast",
  userId: "u",
  fullName: "A B",
};

describe("router: breaker changes reach the audit hook", () => {
  it("tells once when the breaker opens, not on each failed probe, and once when it closes", async () => {
    let now = 0;
    let next: AskResult = { outcome: "fail", reason: "down" };
    const changes: string[] = [];
    const router = createRouter({
      ask: async () => next,
      monotonic: () => now,
      deadlineMs: 1_000,
      breaker: DEFAULT_BREAKER,
      onBreakerChange: (c, to) => changes.push(`${c.code}:${to}`),
    });
    const channels = new Map([[7, channel]]);
    for (let i = 0; i < 3; i++) await router.route([account], channels, request);
    expect(changes).toEqual(["CH:open"]);
    // Failed probes after each cool-down re-open it silently.
    for (let i = 0; i < 3; i++) {
      now += DEFAULT_BREAKER.coolDownMs;
      await router.route([account], channels, request);
    }
    expect(changes).toEqual(["CH:open"]);
    now += DEFAULT_BREAKER.coolDownMs;
    next = { outcome: "accept" };
    expect((await router.route([account], channels, request)).ok).toBe(true);
    expect(changes).toEqual(["CH:open", "CH:closed"]);
    expect(router.breakers().get(7)?.mode).toBe("closed");
  });
});

describe("router: a channel that failed in this routing", () => {
  it("is not asked again about its other accounts, and each failed ask is handed back", async () => {
    const asked: number[] = [];
    const abandoned: string[] = [];
    const router = createRouter({
      async ask(_c, _req, acc): Promise<AskResult> {
        asked.push(acc.id);
        return acc.channelId === 7
          ? { outcome: "fail", reason: "timed out after 100 ms" }
          : { outcome: "accept" };
      },
      abandon: (c, req, acc) => abandoned.push(`${c.code}:${req.askId}:${acc.id}`),
      monotonic: () => performance.now(),
      deadlineMs: 10_000,
      breaker: DEFAULT_BREAKER,
    });
    const other: ChannelInfo = { ...channel, id: 8, code: "OK" };
    const order = [1, 2, 3].map((id) => ({ ...account, id })).concat({ ...account, id: 4, channelId: 8 });
    const result = await router.route(
      order,
      new Map([
        [7, channel],
        [8, other],
      ]),
      request,
    );
    expect(result.ok && result.account.id).toBe(4);
    expect(asked).toEqual([1, 4]);
    expect(result.log.map((s) => `${s.account_id} ${s.outcome} ${s.reason ?? ""}`.trim())).toEqual([
      "1 failed timed out after 100 ms",
      "2 skipped channel failed in this routing",
      "3 skipped channel failed in this routing",
      "4 accepted",
    ]);
    expect(abandoned).toEqual(["CH:1:r:1"]);
  });
});

describe("router: an account whose channel is not among the active ones", () => {
  it("is skipped, never taken as a manual account", async () => {
    const asked: number[] = [];
    const router = createRouter({
      async ask(_c, _req, acc): Promise<AskResult> {
        asked.push(acc.id);
        return { outcome: "accept" };
      },
      monotonic: () => performance.now(),
      deadlineMs: 10_000,
      breaker: DEFAULT_BREAKER,
    });
    // Account 1's channel (7) was switched on or off between the pool's two reads; 2 is manual.
    const order = [account, { ...account, id: 2, channelId: null }];
    const result = await router.route(order, new Map(), request);
    expect(result.ok && result.account.id).toBe(2);
    expect(asked).toEqual([]);
    expect(result.log.map((s) => `${s.account_id} ${s.outcome} ${s.reason ?? ""}`.trim())).toEqual([
      "1 skipped channel not active",
      "2 accepted",
    ]);
    expect(result.log.map(stepChannelLabel)).toEqual(["inactive", "manual"]);
    expect(result.log[0]?.channel_id).toBe(7);
    const alone = await router.route([account], new Map(), request);
    expect(alone.ok).toBe(false);
  });
});

/** A router with background probes, a clock and a channel whose asks fail until told otherwise. */
function backgroundRouter() {
  const clock = { now: 0 };
  const asked: number[] = [];
  const probes: { channel: string; answer(result: ProbeResult | Error): void }[] = [];
  const changes: string[] = [];
  let next: AskResult = { outcome: "fail", reason: "down" };
  const router = createRouter({
    async ask(_c, _r, acc) {
      asked.push(acc.id);
      return next;
    },
    probe: (c) =>
      new Promise<ProbeResult>((resolve, reject) =>
        probes.push({ channel: c.url ?? "", answer: (r) => (r instanceof Error ? reject(r) : resolve(r)) }),
      ),
    monotonic: () => clock.now,
    deadlineMs: 1_000,
    breaker: DEFAULT_BREAKER,
    onBreakerChange: (c, to) => changes.push(`${c.code}:${to}`),
  });
  const channels = new Map([[7, channel]]);
  const route = () => router.route([account], channels, request);
  const settle = () => new Promise((resolve) => setImmediate(resolve));
  return {
    clock,
    asked,
    probes,
    changes,
    router,
    route,
    settle,
    channels,
    answerNext: (a: AskResult) => {
      next = a;
    },
  };
}

describe("router: background probes of an open channel", () => {
  it("probes once per cool-down while no deposit asks; up closes it and the next deposit asks", async () => {
    const t = backgroundRouter();
    for (let i = 0; i < 3; i++) await t.route();
    expect(t.changes).toEqual(["CH:open"]);
    t.router.probeDue();
    expect(t.probes).toHaveLength(0);
    t.clock.now += DEFAULT_BREAKER.coolDownMs;
    // The deposit after the cool-down skips the channel: it is not the probe.
    expect((await t.route()).ok).toBe(false);
    expect(t.asked).toHaveLength(3);
    t.router.probeDue();
    t.router.probeDue();
    expect(t.probes).toHaveLength(1);
    expect(t.probes[0]?.channel).toBe("http://x");
    t.probes[0]?.answer("down");
    await t.settle();
    expect(t.router.breakers().get(7)?.mode).toBe("open");
    t.router.probeDue();
    expect(t.probes).toHaveLength(1);
    t.clock.now += DEFAULT_BREAKER.coolDownMs;
    await t.route();
    t.router.probeDue();
    expect(t.probes).toHaveLength(2);
    t.probes[1]?.answer("up");
    await t.settle();
    expect(t.changes).toEqual(["CH:open", "CH:closed"]);
    t.answerNext({ outcome: "accept" });
    expect((await t.route()).ok).toBe(true);
    expect(t.asked).toHaveLength(4);
  });

  it("a probe that throws counts as down; unsure makes the next deposit the probe", async () => {
    const t = backgroundRouter();
    for (let i = 0; i < 3; i++) await t.route();
    t.clock.now += DEFAULT_BREAKER.coolDownMs;
    await t.route();
    t.router.probeDue();
    t.probes[0]?.answer(new Error("boom"));
    await t.settle();
    expect(t.router.breakers().get(7)).toMatchObject({ mode: "open", probing: false });
    t.clock.now += DEFAULT_BREAKER.coolDownMs;
    t.router.probeDue();
    t.probes[1]?.answer("unsure");
    await t.settle();
    t.answerNext({ outcome: "accept" });
    expect((await t.route()).ok).toBe(true);
    expect(t.asked).toHaveLength(4);
    expect(t.changes).toEqual(["CH:open", "CH:closed"]);
  });

  it("probes with the channel as the last deposit saw it, and not once deposits stop coming by it", async () => {
    const t = backgroundRouter();
    for (let i = 0; i < 3; i++) await t.route();
    t.channels.set(7, { ...channel, url: "http://moved" });
    t.clock.now += DEFAULT_BREAKER.coolDownMs;
    await t.route();
    t.router.probeDue();
    expect(t.probes[0]?.channel).toBe("http://moved");
    t.probes[0]?.answer("down");
    await t.settle();
    // Five minutes with no deposit routed by it: no more probes.
    t.clock.now += 5 * 60_000 + 1;
    t.router.probeDue();
    expect(t.probes).toHaveLength(1);
    // The next deposit is the probe (below), and failing opens it for a cool-down of probes again.
    await t.route();
    expect(t.asked).toHaveLength(4);
    t.clock.now += DEFAULT_BREAKER.coolDownMs;
    await t.route();
    t.router.probeDue();
    expect(t.probes).toHaveLength(2);
  });
});

describe("router: an open channel whose background probes have stopped", () => {
  it("is asked by the next deposit (its probe, as without background probes), not skipped", async () => {
    const t = backgroundRouter();
    for (let i = 0; i < 3; i++) await t.route();
    t.clock.now += DEFAULT_BREAKER.coolDownMs;
    t.router.probeDue();
    t.probes[0]?.answer("down");
    await t.settle();
    // The night: no deposit for five minutes, so no more probes; the channel comes back meanwhile.
    t.clock.now += 5 * 60_000 + 1;
    t.router.probeDue();
    expect(t.probes).toHaveLength(1);
    t.answerNext({ outcome: "accept" });
    // Skipped, this payer would be turned away (no other account) by a channel that is back.
    const routed = await t.route();
    expect(routed.ok, JSON.stringify(routed.log)).toBe(true);
    expect(t.asked).toHaveLength(4);
    expect(t.router.breakers().get(7)?.mode).toBe("closed");
  });

  it("when still down, fails that one deposit over and is probed in the background again", async () => {
    const t = backgroundRouter();
    for (let i = 0; i < 3; i++) await t.route();
    t.clock.now += 5 * 60_000 + 1;
    const routed = await t.route();
    expect(routed.log).toMatchObject([{ outcome: "failed" }]);
    expect(t.router.breakers().get(7)).toMatchObject({ mode: "open", openedAt: t.clock.now });
    // Deposits come by it again: skipped, and probed once the cool-down is over.
    t.clock.now += DEFAULT_BREAKER.coolDownMs;
    expect((await t.route()).log).toMatchObject([{ outcome: "skipped", reason: "channel breaker open" }]);
    t.router.probeDue();
    expect(t.probes).toHaveLength(1);
  });
});
