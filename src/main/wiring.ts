import { createFirmDirectory } from "../auth/firm-directory.js";
import { createRateLimiter } from "../auth/rate-limiter.js";
import { createSharedRateLimiter } from "../auth/shared-rate-limiter.js";
import { type Backoffice, createBackoffice } from "../backoffice/service.js";
import { type CallbackSender, createCallbackSender } from "../callbacks/sender.js";
import { createOutboxWorker, type OutboxWorker } from "../callbacks/worker.js";
import { createChannelClient } from "../channels/http-channel.js";
import { type Config, ConfigError } from "../config/config.js";
import { readOrCreateLocalSecret } from "../config/local-secrets.js";
import { createQueueNotices } from "../console/queue-notices.js";
import { type ConsoleService, createConsoleService } from "../console/service.js";
import { sealContext } from "../crypto/seal-context.js";
import { createSecretBox, openOrUndefined, type SecretBox, sealOnlyWhile } from "../crypto/secret-box.js";
import { createAccountPool } from "../domain/account-pool.js";
import { DEFAULT_BREAKER } from "../domain/breaker.js";
import type { IntakePorts } from "../domain/intake.js";
import { formatMinor } from "../domain/money.js";
import { startOfIstanbulDay, withinDailyCap } from "../domain/routing.js";
import { sandboxRouting } from "../domain/sandbox.js";
import { createHostedSessions } from "../hosted/sessions.js";
import type { AppContext } from "../http/context.js";
import { type AutoCancelJob, createAutoCancelJob } from "../lifecycle/auto-cancel.js";
import { createDatabaseClock, type DatabaseClock } from "../lifecycle/database-clock.js";
import { createNameKeyJob, type NameKeyJob } from "../lifecycle/name-keys.js";
import { createMetrics } from "../metrics/metrics.js";
import { createCallbackTargetCheck } from "../net/callback-target.js";
import {
  type ChannelInfo,
  createRouter,
  type RouteRequest,
  type RoutingStep,
  stepChannelLabel,
} from "../routing/router.js";
import type { AccountRow } from "../store/accounts.js";
import type { ChangeTopic } from "../store/change-feed.js";
import { writeMayHaveHappened } from "../store/errors.js";
import { createRepositories } from "../store/index.js";
import { keyCheck } from "../store/migrations/20261124T2100_key_check.js";
import { migrations } from "../store/migrations/index.js";
import { openStore, type Store } from "../store/open.js";
import { createStoreKeyRepository } from "../store/store-keys.js";
import {
  acceptMasterKey,
  chooseMasterKey,
  finishKeyFileRotation,
  refuseOtherKeyBeforeMigrating,
  stopIfKeyMoved,
} from "./master-key.js";
import { createUnopenableReport } from "./unopenable.js";

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

/** How long one read of the account pool routes deposits; changes through this instance apply at once. */
const ACCOUNT_POOL_TTL_MS = 1_000;
/** How long after the routing deadline a daily cap hold still counts, for the insert to be done. */
const CAP_HOLD_MARGIN_MS = 60_000;

export interface Runtime {
  ctx: AppContext;
  backoffice: Backoffice;
  consoleService: ConsoleService;
  store: Store;
  /** Background work: callback delivery and auto-cancel. Started after the server listens. */
  outbox: OutboxWorker;
  channelClient: { close(): Promise<void> };
  autoCancel: AutoCancelJob;
  /** Makes payer names of rows from before searchable (lifecycle/name-keys.ts). */
  nameKeys: NameKeyJob;
  sender: CallbackSender;
  /** The clock every rule reads, corrected to the database's on PostgreSQL. */
  clock: DatabaseClock;
  warnings: string[];
}

export interface RuntimeLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/**
 * Builds everything once at start. The embedded store may fall back to a master key and admin token
 * generated into the data directory; PostgreSQL deployments run several instances, which must share
 * one key, so there the key has to come from the environment.
 */
export interface WireOptions {
  /** This machine's clock (tests pass one they can move); Date.now by default. */
  now?: () => number;
  /**
   * Correct that clock to the database server's (lifecycle/database-clock.ts). On unless a clock
   * is passed: tests that move their clock keep it as they set it.
   */
  clockFromDatabase?: boolean;
}

export async function wire(config: Config, log: RuntimeLog, opts: WireOptions = {}): Promise<Runtime> {
  const warnings: string[] = [];
  let masterKey = chooseMasterKey(config, warnings);
  // Names only, never values: a misspelt PAYINTAKE_MASTER_KEY would still be a secret.
  if (config.unknownVariables.length > 0)
    warnings.push(
      `${config.unknownVariables.join(", ")}: not a setting payintake reads, ignored (misspelt? the settings are listed in README.md, Configuration)`,
    );
  // Allowed (a development server), but a merchant that redirects to a relative payment_url sends
  // its payer to a path on its own site. Only instances that answer the API open hosted sessions.
  if (config.role !== "worker" && config.paymentPageUrl === undefined)
    warnings.push(
      "PAYMENT_PAGE_URL is not set: hosted deposits answer a relative payment_url (/t/<token>), which " +
        "a merchant's redirect resolves against its own site; set PAYMENT_PAGE_URL to the public base " +
        "URL payers reach this server at (e.g. https://pay.example.com)",
    );
  let adminToken = config.adminToken;
  if (!adminToken) {
    if (config.databaseUrl) {
      throw new ConfigError("invalid configuration:\n  PAYINTAKE_ADMIN_TOKEN: required with DATABASE_URL");
    }
    adminToken = readOrCreateLocalSecret(config.dataDir, "admin.token", 24);
  }

  const store = await openStore({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    pgPoolSize: config.pgPoolSize,
    pgStatementTimeoutMs: config.pgStatementTimeoutMs,
  });
  let box: SecretBox;
  let lockHeld: () => boolean;
  try {
    const storeKeys = createStoreKeyRepository(store.db);
    const applied = await store.appliedMigrations();
    // A store keeps a key check from that migration on; only such a store can have been rotated.
    const keysKept = applied.includes(keyCheck.version);
    if (keysKept && masterKey.source !== "env") {
      const settled = finishKeyFileRotation(config.dataDir, await storeKeys.masterCheck());
      if (settled !== "none") {
        log.warn(
          { rotation: settled },
          "master.key: a master key rotation that stopped half-way was completed or undone",
        );
        masterKey = chooseMasterKey(config, []);
      }
    }
    // A start with another key must not apply a newer version's migrations to a store it then
    // refuses: with migrations pending, the key is compared before them.
    if (keysKept && migrations.some((m) => !applied.includes(m.version)))
      await refuseOtherKeyBeforeMigrating(masterKey, config.dataDir, storeKeys);
    await store.migrate();
    // Held from before the key check to the end: a rotation (which needs the store to itself)
    // cannot slip in between this instance's check and the secrets it seals afterwards.
    lockHeld = await store.holdServingLock(stopIfKeyMoved(masterKey, storeKeys));
    box = sealOnlyWhile(createSecretBox(Buffer.from(masterKey.hex, "hex")), lockHeld);
    // Before anything else reads or writes the store: a key that is not the store's must stop the
    // start here, not fail every signed request and seal new secrets under a second key.
    if (await acceptMasterKey(masterKey, config.dataDir, box, storeKeys, opts.now ?? Date.now))
      log.info({}, "the master key's check is recorded in the store: a start with another key will refuse");
  } catch (err) {
    await store.close();
    throw err;
  }
  const clock = createDatabaseClock({
    base: opts.now ?? Date.now,
    databaseTime: () => store.databaseTime(),
    log,
  });
  if (opts.clockFromDatabase ?? opts.now === undefined) await clock.start();
  const now = clock.now;
  const repos = createRepositories(store);
  const nameKeys = createNameKeyJob({
    transactions: repos.transactions,
    done: (filled) => {
      if (filled > 0)
        log.info({ transactions: filled }, "payer names of earlier transactions made searchable");
    },
    failed: (err) => log.error({ err }, "payer names of earlier transactions not made searchable"),
  });
  if (store.dialect === "sqlite") {
    const freed = await repos.callbacks.releaseAllLeases();
    if (freed > 0)
      log.warn({ callbacks: freed }, "resuming callbacks that were in flight when the server stopped");
  }
  const unopenable = createUnopenableReport(log, () => performance.now());
  const firms = createFirmDirectory(repos.firms, box, now, (firmId) =>
    unopenable(
      `firm:${firmId}`,
      { firmId },
      "a firm's sealed secret key does not open (altered or copied from another row): its requests are refused until its secret is rotated",
    ),
  );
  const callbackTargetAllowed = createCallbackTargetCheck({ allowPrivate: config.allowPrivateCallbacks });

  const accounts = createAccountPool({
    async load() {
      const routable = await repos.channels.routable();
      return {
        accounts: routable.accounts.map(candidateOf),
        channels: routable.channels.flatMap((c) => {
          const secret =
            c.secret_sealed === null
              ? null
              : openOrUndefined(box, c.secret_sealed, sealContext.channelSecret(c.id));
          // A secret that does not open (moved from another channel's row or altered) leaves the
          // channel out, and its accounts with it (routing skips an account whose channel is not
          // in the pool), rather than failing every deposit's routing.
          if (secret === undefined) {
            unopenable(
              `channel:${c.id}`,
              { channel: c.code },
              "a channel's sealed secret does not open (altered or copied from another row): it is left out of routing until its secret is rotated",
            );
            return [];
          }
          return [{ id: c.id, code: c.code, kind: c.kind, url: c.url, secret, timeoutMs: c.timeout_ms }];
        }),
      };
    },
    now,
    ttlMs: ACCOUNT_POOL_TTL_MS,
  });
  const channelClient = createChannelClient({ allowPrivate: config.allowPrivateCallbacks });
  const metrics = createMetrics();
  const countSteps = (log: readonly RoutingStep[]) => {
    for (const step of log)
      metrics.routingAttempts.inc({ channel: stepChannelLabel(step), outcome: step.outcome });
  };
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
    deadlineMs: config.routingDeadlineMs,
    breaker: DEFAULT_BREAKER,
    onBreakerChange(channel, to) {
      log.warn(
        { channel: channel.code, breaker: to },
        `channel breaker ${to === "open" ? "opened" : "closed"}`,
      );
      // The other instances on this PostgreSQL skip it too, until their own probe finds it back.
      if (to === "open")
        store.changes.announce(`channel-down:${channel.id}`).catch((err: unknown) => {
          log.warn({ err, channel: channel.code }, "could not tell other instances the channel is down");
        });
      // The breaker lives in this instance's memory; the log row is its only durable trace.
      repos.audited
        .event(
          {
            actor: "service:breaker",
            action: to === "open" ? "channel.breaker_open" : "channel.breaker_close",
            at: now(),
          },
          "channel",
          String(channel.id),
          { breaker: to === "open" ? "closed" : "open", code: channel.code },
          { breaker: to, code: channel.code },
        )
        .catch((err: unknown) =>
          log.error({ err, channel: channel.code }, "could not write the breaker's audit entry"),
        );
    },
  });
  // Open channels are asked in the background whether they are back (docs/channels.md), so no
  // payer's deposit waits for a channel that is still down.
  const probing = setInterval(() => router.probeDue(), 1_000);
  probing.unref();
  /** A test firm's deposit: the sandbox account, or the outcome its amount asks for. */
  async function routeSandbox(amountMinor: number) {
    const outcome = sandboxRouting(amountMinor);
    metrics.routingAttempts.inc({ channel: "sandbox", outcome: outcome === "accept" ? "accepted" : outcome });
    const row = outcome === "accept" ? await repos.accounts.sandbox() : undefined;
    if (outcome !== "accept" || !row)
      return { ok: false as const, rejection: outcome === "accept" ? ("no_account" as const) : outcome };
    return {
      ok: true as const,
      account: { ...candidateOf(row), lastAssignedAt: 0 },
      log: [{ account_id: row.id, channel: "sandbox", outcome: "accepted" as const, ms: 0 }],
      release: async () => {},
    };
  }

  // A cap hold outlives the deposit's routing and its insert; past this an instance that stopped
  // mid-deposit no longer holds the amount.
  const capHoldMs = config.routingDeadlineMs + CAP_HOLD_MARGIN_MS;
  const notRouted = (
    input: { firmId: number; reference: string; amountMinor: number },
    steps: readonly RoutingStep[],
    rejection: "no_account" | "channel_declined",
  ) => {
    // The merchant's reference and the amount, so an operator can match a merchant's 422 to its
    // attempts (neither is a secret; the payer's name and ids stay out).
    log.info(
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
  };

  // On PostgreSQL every instance's consoles hear of it, through the database (store/change-feed.ts).
  const queueNotices = createQueueNotices({
    share:
      store.dialect === "postgres"
        ? () =>
            void store.changes.announce("queue").catch((err: unknown) => {
              log.warn(
                { err },
                "could not tell the consoles of a queue change; they see it at their next poll",
              );
            })
        : undefined,
    onError: (err) => log.warn({ err }, "a console's live stream failed"),
  });
  const intake: IntakePorts = {
    businessFacts: (firmId, reference, userId, type) =>
      repos.transactions.businessFacts(firmId, reference, userId, type),
    async route(input) {
      if (input.sandbox) return routeSandbox(input.amountMinor);
      const plan = await accounts.plan(input.amountMinor, input.bankCode);
      const day = startOfIstanbulDay(now());
      let order = plan.order;
      const capped = order.filter((a) => a.dailyCap != null).map((a) => a.id);
      if (capped.length > 0) {
        const used = await repos.capHolds.usage(capped, day, now());
        order = withinDailyCap(order, used, input.amountMinor);
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
      for (let round = 0; round < 3; round++) {
        const first = order[0];
        if (!first || (round > 0 && performance.now() - started > config.routingDeadlineMs / 2)) break;
        accounts.markAssigned(first.id);
        const routed = await router.route(order, plan.channels, request);
        countSteps(routed.log);
        steps.push(...routed.log);
        if (!routed.ok) return notRouted(input, steps, routed.rejection);
        const chosen = routed.account;
        if (chosen.id !== first.id) accounts.markAssigned(chosen.id);
        const channel = chosen.channelId == null ? undefined : plan.channels.get(chosen.channelId);
        let done: () => void = () => {};
        if (chosen.dailyCap != null) {
          // Judged again now that the channel has answered, against every instance's deposits
          // written and in flight, and held in the same database transaction.
          // The day is taken again too: a deposit whose ask ran past Istanbul midnight is written
          // on the new day and counts there, not against the day it arrived on.
          const at = now();
          const held = await repos.capHolds.hold({
            firmId: input.firmId,
            reference: input.reference,
            accountId: chosen.id,
            amountMinor: input.amountMinor,
            since: startOfIstanbulDay(at),
            now: at,
            expiresAt: at + capHoldMs,
          });
          if (held.outcome === "full") {
            if (channel?.kind === "http") void release(channel, request, chosen, "daily cap reached");
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
          if (held.outcome === "held") {
            // Once the insert has answered the deposit counts by itself (or not at all).
            done = () => {
              repos.capHolds
                .release(held.id)
                .catch((err: unknown) => log.warn({ err }, "a daily cap hold was not released; it expires"));
            };
          }
        }
        return {
          ok: true,
          account: chosen,
          log: steps,
          written: done,
          release: async () => {
            if (channel?.kind === "http") await release(channel, request, chosen, "deposit not written");
          },
        };
      }
      return notRouted(input, steps, "no_account");
    },
    insert: (tx) => repos.transactions.insert(tx),
    queued: () => queueNotices.changed(),
    writeMayHaveHappened: (err) => writeMayHaveHappened(err, store.dialect),
    async holderOf(firmId, reference) {
      const row = await repos.transactions.findByReference(firmId, reference);
      return row && { accountId: row.account_id, amountMinor: row.amount };
    },
    sealNationalId: (value, firmId, reference) => box.seal(value, sealContext.nationalId(firmId, reference)),
    now,
  };

  metrics.observe({
    callbackCounts: () => repos.callbacks.countOpen(),
    async breakers() {
      const states = router.breakers();
      const codes = new Map<string, string>();
      for (const c of await repos.channels.list()) codes.set(c.code, states.get(c.id)?.mode ?? "closed");
      return codes;
    },
  });

  // One instance (the embedded store) limits exactly in memory; on PostgreSQL the limit is shared.
  const rateLimiter =
    store.dialect === "postgres"
      ? createSharedRateLimiter({
          store: repos.rateWindows,
          now,
          onError: (err) =>
            log.warn({ err }, "rate limits cannot be shared now: each instance limits on its own"),
        })
      : createRateLimiter(now);

  const hosted = createHostedSessions({ repos, box, intake, now });
  const ctx: AppContext = {
    config,
    repos,
    firms,
    box,
    rateLimiter,
    callbackTargetAllowed,
    intake,
    hosted,
    adminToken,
    settle: () => store.settle(),
    ping: () => store.ping(),
    servingLockHeld: lockHeld,
    metrics,
    queueNotices,
    draining: false,
    now,
  };
  const sender = createCallbackSender({
    allowPrivate: config.allowPrivateCallbacks,
    timeoutMs: config.callbacks.timeoutMs,
    perOrigin: config.callbacks.perOrigin,
    now,
  });
  const outbox = createOutboxWorker({
    callbacks: repos.callbacks,
    onAttempt: (outcome) => metrics.callbackDeliveries.inc({ outcome }),
    async secretFor(firmId) {
      // Cached like firm lookups and evicted with them on every instance, so a rotated secret signs
      // callbacks from the next attempt on, as it authenticates requests.
      const secret = await firms.secretOf(firmId);
      if (secret === undefined) return { unsignable: `firm ${firmId} not found: no callback is signed` };
      // A failed attempt like any other, until the firm is given a new secret.
      if (secret === null)
        return { unsignable: `firm ${firmId}'s secret key does not open: no callback is signed` };
      return { secret };
    },
    sender,
    settle: () => store.settle(),
    now,
    random: Math.random,
    log,
    options: {
      concurrency: config.callbacks.concurrency,
      perOrigin: config.callbacks.perOrigin,
      pollMs: config.callbacks.pollMs,
      leaseMs: config.callbacks.leaseMs,
      slowAfterMs: config.callbacks.timeoutMs / 2,
    },
  });
  const autoCancel = createAutoCancelJob({
    decisions: repos.decisions,
    now,
    intervalMs: config.autoCancelIntervalMs,
    cancelled: (_ids, live) => {
      outbox.poke();
      if (live) queueNotices.changed();
    },
    log,
  });
  const announce = (topic: ChangeTopic) =>
    void store.changes.announce(topic).catch((err: unknown) => {
      log.warn(
        { err, topic },
        "could not tell other instances of a change; their caches catch up within a second",
      );
    });
  store.changes.onChange((topic) => {
    if (topic === "firms" || topic === "all") firms.evictAll();
    if (topic === "accounts" || topic === "all") accounts.invalidate();
    if (topic === "queue" || topic === "all") queueNotices.heard();
    if (topic.startsWith("channel-down:")) router.heardDown(Number(topic.slice("channel-down:".length)));
  });
  const backoffice = createBackoffice({
    repos,
    box,
    callbackTargetAllowed,
    httpsChannelsOnly: !config.allowPrivateCallbacks,
    // Here at once; on the other instances as soon as PostgreSQL tells them (store/change-feed.ts).
    firmsChanged: () => {
      firms.evictAll();
      announce("firms");
    },
    accountsChanged: () => {
      accounts.invalidate();
      announce("accounts");
    },
    callbackQueued: () => outbox.poke(),
    decided: () => queueNotices.changed(),
    channelHealth: () => new Map([...router.breakers()].map(([id, b]) => [id, b.mode])),
    now,
  });
  const consoleService = createConsoleService({
    repos,
    box,
    now,
    secondFactorRequired: config.consoleSecondFactorRequired,
    undoSeconds: config.consoleUndoSeconds,
    idleMinutes: config.consoleIdleMinutes,
    onError: (err) => log.warn({ err }, "console sign-in count not kept up to date"),
  });
  return {
    ctx,
    backoffice,
    consoleService,
    store,
    outbox,
    autoCancel,
    nameKeys,
    sender,
    channelClient: {
      async close() {
        clearInterval(probing);
        await channelClient.close();
      },
    },
    clock,
    warnings,
  };
}
