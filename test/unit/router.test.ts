import { describe, expect, it } from "vitest";
import { DEFAULT_BREAKER } from "../../src/domain/breaker.js";
import type { AccountCandidate, ChannelInfo } from "../../src/domain/routing.js";
import { type AskResult, createRouter } from "../../src/routing/router.js";

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
