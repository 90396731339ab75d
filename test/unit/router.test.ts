import { describe, expect, it } from "vitest";
import { DEFAULT_BREAKER } from "../../src/domain/breaker.js";
import type { AccountCandidate, ChannelInfo } from "../../src/domain/routing.js";
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
