/**
 * Walks the accounts of a deposit in routing order (routing/account-order.ts routeOrder) until one is
 * accepted: a manual account accepts at once; an http channel is asked, within its own timeout and
 * the deposit's overall deadline. A channel whose breaker is open is skipped without waiting, so a
 * channel known to be down costs a payer nothing, and a channel that failed once in this routing
 * (a timeout, say) is not asked again about its other accounts: the payer would wait its timeout
 * once per account. Every step goes into the routing log.
 */
import type { RoutingStep } from "../domain/routing-step.js";
import type { AccountCandidate, ChannelInfo } from "./account-order.js";
import {
  admit,
  type BreakerConfig,
  type BreakerMode,
  type BreakerState,
  closedBreaker,
  dueForProbe,
  heardOpen,
  type ProbeResult,
  probed,
  probeStarted,
  record,
} from "./breaker.js";

export type { ChannelInfo };

export interface RouteRequest {
  /** The deposit's part of each ask's id, `<firm id>:<reference>` (routing/channels/http-channel.ts askIdOf). */
  askId: string;
  amountMinor: number;
  bankCode: string;
  method: string;
  userId: string;
  fullName: string;
}

export type { RoutingStep };

export type AskResult = { outcome: "accept" } | { outcome: "decline" | "fail"; reason: string };

/** The step's channel as metrics name it: its code, `inactive`, or `manual` (no channel asked). */
export function stepChannelLabel(step: Pick<RoutingStep, "channel" | "channel_id">): string {
  return step.channel ?? (step.channel_id == null ? "manual" : "inactive");
}

export type RouteResult =
  | { ok: true; account: AccountCandidate; log: RoutingStep[] }
  | { ok: false; rejection: "no_account" | "channel_declined"; log: RoutingStep[] };

export interface RouterDeps {
  ask(
    channel: ChannelInfo,
    request: RouteRequest,
    account: AccountCandidate,
    timeoutMs: number,
  ): Promise<AskResult>;
  /** Monotonic milliseconds, for timeouts and the breaker. */
  monotonic(): number;
  deadlineMs: number;
  breaker: BreakerConfig;
  /** Told when a channel's breaker opens or closes again, for the audit log. */
  onBreakerChange?(channel: ChannelInfo, to: BreakerMode): void;
  /**
   * Told of an ask that failed (no answer in time, a broken answer): the channel may have reserved
   * the account all the same, so it is told to let it go. Not awaited.
   */
  abandon?(channel: ChannelInfo, request: RouteRequest, account: AccountCandidate): void;
  /**
   * Asks a channel whose breaker is open whether it is back, carrying no payer (docs/channels.md).
   * Without it, the first deposit after each cool-down is the probe and waits for the channel.
   */
  probe?(channel: ChannelInfo): Promise<ProbeResult>;
}

export interface Router {
  route(
    order: readonly AccountCandidate[],
    channels: ReadonlyMap<number, ChannelInfo>,
    request: RouteRequest,
  ): Promise<RouteResult>;
  /** Breaker state per channel id, for operators and metrics. */
  breakers(): ReadonlyMap<number, BreakerState>;
  /** Sends the background probes that are due (main/wiring.ts calls it every second). */
  probeDue(): void;
  /** Another instance's breaker opened for this channel (routing/breaker.ts heardOpen). */
  heardDown(channelId: number): void;
}

/**
 * An open channel is probed while deposits still come by it, and no longer: a channel switched off
 * or left out of routing is not asked about for ever. The first deposit to come by it after that is
 * its probe, as without background probes: the channel may be back by then, and skipping it would
 * turn away a payer it could serve.
 */
const PROBE_WHILE_SEEN_MS = 5 * 60_000;

export function createRouter(deps: RouterDeps): Router {
  const breakers = new Map<number, BreakerState>();
  const background = deps.probe !== undefined;
  /** The channel as a deposit last saw it (its URL and secret may change), and when. */
  const seen = new Map<number, { channel: ChannelInfo; at: number }>();
  /** Whether background probes are watching the channel now (a deposit came by it lately). */
  const watched = (channelId: number, now: number) => {
    const last = seen.get(channelId);
    return last !== undefined && now - last.at <= PROBE_WHILE_SEEN_MS;
  };

  function sendProbe(channel: ChannelInfo, probe: (c: ChannelInfo) => Promise<ProbeResult>): void {
    probe(channel)
      .catch((): ProbeResult => "down")
      .then((result) => {
        const before = breakers.get(channel.id);
        if (!before) return;
        const after = probed(before, result, deps.monotonic());
        breakers.set(channel.id, after);
        if (before.mode !== "closed" && after.mode === "closed") deps.onBreakerChange?.(channel, "closed");
      });
  }

  return {
    breakers: () => breakers,
    probeDue() {
      if (!deps.probe) return;
      const now = deps.monotonic();
      for (const [id, state] of breakers) {
        const last = seen.get(id);
        if (!last || !watched(id, now) || !dueForProbe(state, now, deps.breaker)) continue;
        breakers.set(id, probeStarted(state));
        sendProbe(last.channel, deps.probe);
      }
    },
    heardDown(channelId) {
      breakers.set(channelId, heardOpen(breakers.get(channelId) ?? closedBreaker(), deps.monotonic()));
    },
    async route(order, channels, request) {
      const log: RoutingStep[] = [];
      const started = deps.monotonic();
      let declined = false;
      const failedHere = new Set<number>();
      for (const account of order) {
        const channel = account.channelId == null ? undefined : channels.get(account.channelId);
        if (account.channelId != null && !channel) {
          // Its channel is not among the active ones read with the pool (a channel switched on
          // between the pool's two reads): never taken as manual, which would give out an IBAN no
          // channel reserved.
          log.push({
            account_id: account.id,
            channel: null,
            channel_id: account.channelId,
            outcome: "skipped",
            reason: "channel not active",
            ms: 0,
          });
          continue;
        }
        if (!channel || channel.kind === "manual") {
          log.push({ account_id: account.id, channel: channel?.code ?? null, outcome: "accepted", ms: 0 });
          return { ok: true, account, log };
        }
        const left = deps.deadlineMs - (deps.monotonic() - started);
        if (left < 1) {
          log.push({
            account_id: account.id,
            channel: channel.code,
            outcome: "skipped",
            reason: "deadline reached",
            ms: 0,
          });
          continue;
        }
        if (failedHere.has(channel.id)) {
          log.push({
            account_id: account.id,
            channel: channel.code,
            outcome: "skipped",
            reason: "channel failed in this routing",
            ms: 0,
          });
          continue;
        }
        const now = deps.monotonic();
        const gate = admit(
          breakers.get(channel.id) ?? closedBreaker(),
          now,
          deps.breaker,
          background && watched(channel.id, now),
        );
        breakers.set(channel.id, gate.state);
        if (gate.decision === "skip") {
          if (background) seen.set(channel.id, { channel, at: deps.monotonic() });
          log.push({
            account_id: account.id,
            channel: channel.code,
            outcome: "skipped",
            reason: "channel breaker open",
            ms: 0,
          });
          continue;
        }
        const t0 = deps.monotonic();
        const timeoutMs = Math.max(1, Math.floor(Math.min(channel.timeoutMs, left)));
        const answer = await deps.ask(channel, request, account, timeoutMs);
        const ms = Math.round(deps.monotonic() - t0);
        const failed = answer.outcome === "fail";
        const before = breakers.get(channel.id) ?? closedBreaker();
        const after = record(before, failed, deps.monotonic(), deps.breaker);
        breakers.set(channel.id, after);
        if (background && after.mode === "open") seen.set(channel.id, { channel, at: deps.monotonic() });
        // An opening and a closing are logged; a failed probe re-opening it every cool-down is not news.
        if (before.mode === "closed" ? after.mode === "open" : after.mode === "closed") {
          deps.onBreakerChange?.(channel, after.mode);
        }
        if (answer.outcome === "accept") {
          log.push({ account_id: account.id, channel: channel.code, outcome: "accepted", ms });
          return { ok: true, account, log };
        }
        if (answer.outcome === "decline") declined = true;
        if (failed) {
          failedHere.add(channel.id);
          deps.abandon?.(channel, request, account);
        }
        log.push({
          account_id: account.id,
          channel: channel.code,
          outcome: answer.outcome === "decline" ? "declined" : "failed",
          reason: answer.reason,
          ms,
        });
      }
      return { ok: false, rejection: declined ? "channel_declined" : "no_account", log };
    },
  };
}
