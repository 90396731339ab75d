import { sealContext } from "../crypto/seal-context.js";
import { openOrUndefined, type SecretBox } from "../crypto/secret-box.js";
import { capShareFor, sharedWithOthers } from "../domain/cap-share.js";
import { formatMinor } from "../domain/money.js";
import { startOfTurkeyDay } from "../domain/turkey-time.js";
import type { Metrics } from "../metrics/metrics.js";
import type { Repositories } from "../store/index.js";
import type { AccountRow } from "../store/routing/accounts.js";
import { type AccountCandidate, withinDailyCap } from "./account-order.js";
import { createAccountPool } from "./account-pool.js";
import { type BreakerMode, DEFAULT_BREAKER } from "./breaker.js";
import { createChannelClient } from "./channels/http-channel.js";
import {
  type ChannelInfo,
  createRouter,
  type RouteRequest,
  type RoutingStep,
  stepChannelLabel,
} from "./router.js";
import { sandboxRouting } from "./sandbox.js";

/** What intake asks routing for: one deposit to place. */
export interface RouteInput {
  firmId: number;
  /** A test firm: the sandbox account, never the live pool. */
  sandbox: boolean;
  reference: string;
  amountMinor: number;
  bankCode: string;
  method: string;
  userId: string;
  fullName: string;
  /** The firm's own share of each capped account's day (`max_cap_share`), percent; null: the default's. */
  capShare: number | null;
}

/** Where a deposit went: the account and the routing log, or why no account took it. */
export type DepositRoute =
  | {
      ok: true;
      account: AccountCandidate;
      log: readonly unknown[];
      /** Tells the accepting channel to let its reservation go (best effort; nothing for manual accounts). */
      release(): Promise<void>;
      /**
       * Called once the insert has answered, written or refused, or failed writing nothing (a
       * daily cap's hold ends). Not when its outcome is unknown: the row may still be written (a
       * batch given up on after its timeout runs on in PostgreSQL), so the hold stays until it
       * expires rather than free room twice.
       */
      written?(): void;
    }
  | { ok: false; rejection: "no_account" | "channel_declined" };

/** How long one read of the account pool routes deposits; changes through this instance apply at once. */
const ACCOUNT_POOL_TTL_MS = 1_000;
/** How long after the routing deadline a daily cap hold still counts, for the insert to be done. */
const CAP_HOLD_MARGIN_MS = 60_000;
/** How many accounts a deposit may go on to when the one its channel accepted filled up meanwhile. */
const CAP_ROUNDS = 3;
/** How often open channels are asked whether they are back. */
const PROBE_EVERY_MS = 1_000;

export interface DepositRoutingDeps {
  repos: Pick<Repositories, "channels" | "accounts" | "capHolds" | "audited" | "firms">;
  box: SecretBox;
  metrics: Pick<Metrics, "routingAttempts">;
  log: {
    info(obj: object, msg: string): void;
    warn(obj: object, msg: string): void;
    error(obj: object, msg: string): void;
  };
  routingDeadlineMs: number;
  /**
   * The share of each capped account's day a firm without its own may take while other live firms
   * share the account, percent (config PAYINTAKE_DEFAULT_CAP_SHARE; 100: the whole cap).
   */
  defaultCapShare: number;
  allowPrivateChannels: boolean;
  /** Tells every instance on this store that a channel's breaker opened. */
  announceChannelDown(channelId: number): Promise<void>;
  /** Reports a sealed value that does not open, at most once a minute per place (main/broken-seal-report.ts). */
  brokenSeal(place: string, fields: object, message: string): void;
  now(): number;
}

/** A payment account as routing sees it (the live pool's, and the sandbox firms' one). */
function candidateOf(a: AccountRow & { channel_code?: string | null }) {
  return {
    id: a.id,
    bankName: a.bank_name,
    holderName: a.holder_name,
    iban: a.iban,
    minAmount: a.min_amount,
    maxAmount: a.max_amount,
    active: a.active === 1,
    channelId: a.channel_id,
    dailyCap: a.daily_cap,
    preferFor: [a.bank_code, a.channel_code ?? null]
      .filter((c): c is string => !!c)
      .map((c) => c.toUpperCase()),
  };
}

/**
 * Deposit routing as intake uses it: the account pool (accounts and their channels, with channel
 * secrets opened), the router with its breakers and background probes, daily caps held while a
 * deposit is written, and the sandbox firms' own account.
 */
export function createDepositRouting(deps: DepositRoutingDeps) {
  const { log, now } = deps;
  const accounts = createAccountPool({ load: () => loadPool(deps), now, ttlMs: ACCOUNT_POOL_TTL_MS });
  const channelClient = createChannelClient({ allowPrivate: deps.allowPrivateChannels });
  const release = (channel: ChannelInfo, request: RouteRequest, account: { id: number }, why: string) =>
    channelClient.release(channel, request, account).then((released) => {
      if (!released.ok)
        log.warn({ channel: channel.code, reason: released.reason, after: why }, "channel release failed");
    });
  const router = createRouter({
    ask: channelClient.ask,
    probe: channelClient.probe,
    abandon: (channel, request, account) => void release(channel, request, account, "failed ask"),
    monotonic: () => performance.now(),
    deadlineMs: deps.routingDeadlineMs,
    breaker: DEFAULT_BREAKER,
    onBreakerChange: (channel, to) => breakerChanged(deps, channel, to),
  });
  // Open channels are asked in the background whether they are back (docs/channels.md), so no
  // payer's deposit waits for a channel that is still down.
  const probing = setInterval(() => router.probeDue(), PROBE_EVERY_MS);
  probing.unref();
  const countSteps = (steps: readonly RoutingStep[]) => {
    for (const step of steps)
      deps.metrics.routingAttempts.inc({ channel: stepChannelLabel(step), outcome: step.outcome });
  };
  const placing: Placing = { deps, accounts, router, release, countSteps };
  return {
    route: (input: RouteInput): Promise<DepositRoute> =>
      input.sandbox ? routeSandbox(deps, input.amountMinor) : routeLive(placing, input),
    /** The pool is read again at the next deposit (accounts or channels changed). */
    invalidate: () => accounts.invalidate(),
    breakers: () => router.breakers(),
    heardDown: (channelId: number) => router.heardDown(channelId),
    async close() {
      clearInterval(probing);
      await channelClient.close();
    },
  };
}

export type DepositRouting = ReturnType<typeof createDepositRouting>;

/**
 * The pool as the store has it: a channel whose secret does not open is left out with its accounts.
 * The live firms come with it, so that a deposit knows whether its accounts are shared without a
 * read of its own.
 */
async function loadPool(deps: DepositRoutingDeps) {
  const [routable, liveFirms] = await Promise.all([
    deps.repos.channels.routable(),
    deps.repos.firms.liveIds(),
  ]);
  return {
    liveFirms,
    accounts: routable.accounts.map(candidateOf),
    channels: routable.channels.flatMap((c) => {
      const secret =
        c.secret_sealed === null
          ? null
          : openOrUndefined(deps.box, c.secret_sealed, sealContext.channelSecret(c.id));
      // A secret that does not open (moved from another channel's row or altered) leaves the
      // channel out, and its accounts with it (routing skips an account whose channel is not
      // in the pool), rather than failing every deposit's routing.
      if (secret === undefined) {
        deps.brokenSeal(
          `channel:${c.id}`,
          { channel: c.code },
          "a channel's sealed secret does not open (altered or copied from another row): it is left out of routing until its secret is rotated",
        );
        return [];
      }
      return [{ id: c.id, code: c.code, kind: c.kind, url: c.url, secret, timeoutMs: c.timeout_ms }];
    }),
  };
}

function breakerChanged(deps: DepositRoutingDeps, channel: ChannelInfo, to: BreakerMode): void {
  const { log } = deps;
  log.warn({ channel: channel.code, breaker: to }, `channel breaker ${to === "open" ? "opened" : "closed"}`);
  // The other instances on this PostgreSQL skip it too, until their own probe finds it back.
  if (to === "open")
    deps.announceChannelDown(channel.id).catch((err: unknown) => {
      log.warn({ err, channel: channel.code }, "could not tell other instances the channel is down");
    });
  // The breaker lives in this instance's memory; the log row is its only durable trace.
  deps.repos.audited
    .event(
      {
        actor: "service:breaker",
        action: to === "open" ? "channel.breaker_open" : "channel.breaker_close",
        at: deps.now(),
      },
      "channel",
      String(channel.id),
      { breaker: to === "open" ? "closed" : "open", code: channel.code },
      { breaker: to, code: channel.code },
    )
    .catch((err: unknown) =>
      log.error({ err, channel: channel.code }, "could not write the breaker's audit entry"),
    );
}

/** A test firm's deposit: the sandbox account, or the outcome its amount asks for. */
async function routeSandbox(deps: DepositRoutingDeps, amountMinor: number): Promise<DepositRoute> {
  const outcome = sandboxRouting(amountMinor);
  deps.metrics.routingAttempts.inc({
    channel: "sandbox",
    outcome: outcome === "accept" ? "accepted" : outcome,
  });
  const row = outcome === "accept" ? await deps.repos.accounts.sandbox() : undefined;
  if (outcome !== "accept" || !row)
    return { ok: false as const, rejection: outcome === "accept" ? ("no_account" as const) : outcome };
  return {
    ok: true as const,
    account: { ...candidateOf(row), lastAssignedAt: 0 },
    log: [{ account_id: row.id, channel: "sandbox", outcome: "accepted" as const, ms: 0 }],
    release: async () => {},
  };
}

interface Placing {
  deps: DepositRoutingDeps;
  accounts: ReturnType<typeof createAccountPool>;
  router: ReturnType<typeof createRouter>;
  release(channel: ChannelInfo, request: RouteRequest, account: { id: number }, why: string): Promise<void>;
  countSteps(steps: readonly RoutingStep[]): void;
}

function notRouted(
  deps: DepositRoutingDeps,
  input: RouteInput,
  steps: readonly RoutingStep[],
  rejection: "no_account" | "channel_declined",
): DepositRoute {
  // The merchant's reference and the amount, so an operator can match a merchant's 422 to its
  // attempts (neither is a secret; the payer's name and ids stay out).
  deps.log.info(
    {
      firm: input.firmId,
      reference: input.reference,
      amount: formatMinor(input.amountMinor),
      routing: steps,
      outcome: rejection,
    },
    "deposit not routed",
  );
  return { ok: false as const, rejection };
}

/** A live firm's deposit: the pool in routing order, within daily caps, asked until a channel accepts. */
async function routeLive(placing: Placing, input: RouteInput): Promise<DepositRoute> {
  const { deps, accounts, router } = placing;
  const plan = await accounts.plan(input.amountMinor, input.bankCode);
  let order = plan.order;
  const capped = order.filter((a) => a.dailyCap != null).map((a) => a.id);
  if (capped.length > 0) {
    const used = await deps.repos.capHolds.usageOf(
      capped,
      startOfTurkeyDay(deps.now()),
      deps.now(),
      input.firmId,
    );
    const shared = sharedWithOthers(plan.liveFirms, input.firmId);
    order = withinDailyCap(
      order,
      used,
      input.amountMinor,
      capShareFor(input.capShare, deps.defaultCapShare, shared),
    );
  }
  const request: RouteRequest = {
    // With the account and the amount, each ask's id (askIdOf): a retry of this deposit asking
    // the same account for the same amount repeats its ask, and a channel never reserves twice.
    askId: `${input.firmId}:${input.reference}`,
    amountMinor: input.amountMinor,
    bankCode: input.bankCode,
    method: input.method,
    userId: input.userId,
    fullName: input.fullName,
  };
  const steps: RoutingStep[] = [];
  const started = performance.now();
  // A capped account chosen after a slow ask may have filled up meanwhile: then the accounts
  // after it (those before it were asked already), while half the routing deadline is left.
  for (let round = 0; round < CAP_ROUNDS; round++) {
    const first = order[0];
    if (!first || (round > 0 && performance.now() - started > deps.routingDeadlineMs / 2)) break;
    accounts.markAssigned(first.id);
    const routed = await router.route(order, plan.channels, request);
    placing.countSteps(routed.log);
    steps.push(...routed.log);
    if (!routed.ok) return notRouted(deps, input, steps, routed.rejection);
    const chosen = routed.account;
    if (chosen.id !== first.id) accounts.markAssigned(chosen.id);
    const channel = chosen.channelId == null ? undefined : plan.channels.get(chosen.channelId);
    const releaseChannel = async (why: string) => {
      if (channel?.kind === "http") await placing.release(channel, request, chosen, why);
    };
    const held =
      chosen.dailyCap == null ? ({ outcome: "uncapped" } as const) : await holdCap(deps, input, chosen.id);
    if (held.outcome === "full") {
      void releaseChannel("daily cap reached");
      steps.push({
        account_id: chosen.id,
        channel: channel?.code ?? null,
        outcome: "skipped",
        reason: "daily cap reached while routing",
        ms: 0,
      });
      order = order.slice(order.indexOf(chosen) + 1);
      continue;
    }
    return {
      ok: true,
      account: chosen,
      log: steps,
      written: held.outcome === "held" ? held.release : () => {},
      release: () => releaseChannel("deposit not written"),
    };
  }
  return notRouted(deps, input, steps, "no_account");
}

/**
 * Holds the deposit's amount against its account's daily cap, judged again now that the channel
 * has answered, against every instance's deposits written and in flight, in one database
 * transaction. The day is taken again too: a deposit whose ask ran past Istanbul midnight is
 * written on the new day and counts there, not against the day it arrived on.
 */
async function holdCap(
  deps: DepositRoutingDeps,
  input: RouteInput,
  accountId: number,
): Promise<{ outcome: "full" } | { outcome: "held"; release(): void } | { outcome: "uncapped" }> {
  const at = deps.now();
  const held = await deps.repos.capHolds.hold({
    firmId: input.firmId,
    reference: input.reference,
    accountId,
    amountMinor: input.amountMinor,
    since: startOfTurkeyDay(at),
    now: at,
    // A cap hold outlives the deposit's routing and its insert; past this an instance that stopped
    // mid-deposit no longer holds the amount.
    expiresAt: at + deps.routingDeadlineMs + CAP_HOLD_MARGIN_MS,
    // The store judges whether the account is shared again, under the account's lock.
    capShare: input.capShare,
    defaultCapShare: deps.defaultCapShare,
  });
  if (held.outcome === "full") return { outcome: "full" };
  if (held.outcome !== "held") return { outcome: "uncapped" };
  return {
    outcome: "held",
    // Once the insert has answered the deposit counts by itself (or not at all).
    release: () => {
      deps.repos.capHolds
        .release(held.id)
        .catch((err: unknown) => deps.log.warn({ err }, "a daily cap hold was not released; it expires"));
    },
  };
}
