import { type Backoffice, createBackoffice } from "../backoffice/operator-services.js";
import { createCallbackDelivery } from "../callbacks/delivery.js";
import type { CallbackSender } from "../callbacks/sender.js";
import type { OutboxWorker } from "../callbacks/worker.js";
import type { Config } from "../config/config.js";
import { sealContext } from "../crypto/seal-context.js";
import type { SecretBox } from "../crypto/secret-box.js";
import { createPendingBoundNotices } from "../dashboard/pending-bounds.js";
import { createQueueNotices } from "../decisions/queue-notices.js";
import { createRateLimiter } from "../http/rate-limit/rate-limiter.js";
import { createSharedRateLimiter } from "../http/rate-limit/shared-rate-limiter.js";
import { createFirmDirectory, type FirmDirectory } from "../intake/firm-directory.js";
import type { IntakePorts } from "../intake/intake.js";
import { type AutoCancelJob, createAutoCancelJob } from "../jobs/auto-cancel.js";
import { createDatabaseClock, type DatabaseClock } from "../jobs/database-clock.js";
import { createFeedWatch, type FeedWatch } from "../jobs/feed-watch.js";
import { createNameKeyJob, type NameKeyJob } from "../jobs/name-keys.js";
import { createPayoutWatch, type PayoutWatch } from "../jobs/payout-watch.js";
import { createMetrics, type Metrics } from "../metrics/metrics.js";
import { createCallbackTargetCheck } from "../net/callback-target.js";
import { type ConsoleService, createConsoleService } from "../operators/service.js";
import { createHostedSessions } from "../payment-page/sessions.js";
import { releaseBatch } from "../payouts/channel-release.js";
import { createPayoutChannelClient, type PayoutChannelClient } from "../payouts/channels/payout-channel.js";
import { createDepositRouting, type DepositRouting } from "../routing/deposit-routing.js";
import type { ChangeTopic } from "../store/engine/change-feed.js";
import { writeMayHaveHappened } from "../store/engine/errors.js";
import type { Store } from "../store/engine/open.js";
import { createRepositories, type Repositories } from "../store/index.js";
import type { AppContext } from "./app.js";
import { createBrokenSealReport } from "./broken-seal-report.js";
import { sharedOutbox } from "./callback-notices.js";
import { chooseMasterKey } from "./master-key.js";
import { adminTokenOf, configurationWarnings, openKeyedStore, requireSharedSecrets } from "./start-up.js";

/** How often each instance looks for statement feeds gone silent (jobs/feed-watch.ts). */
const FEED_WATCH_MS = 60_000;

export interface Runtime {
  ctx: AppContext;
  backoffice: Backoffice;
  consoleService: ConsoleService;
  store: Store;
  /** Background work: callback delivery and auto-cancel. Started after the server listens. */
  outbox: OutboxWorker;
  /** The deposits' routing (routing/deposit-routing.ts): its channels' connections close at stop. */
  depositRouting: { close(): Promise<void> };
  autoCancel: AutoCancelJob;
  feedWatch: FeedWatch;
  /** Payouts sent through payout channels: the release, the watch, and their client. */
  payoutChannels: PayoutChannels;
  /** Makes payer names of rows from before searchable (jobs/name-keys.ts). */
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
   * Correct that clock to the database server's (jobs/database-clock.ts). On unless a clock
   * is passed: tests that move their clock keep it as they set it.
   */
  clockFromDatabase?: boolean;
}

export async function wire(config: Config, log: RuntimeLog, opts: WireOptions = {}): Promise<Runtime> {
  const warnings: string[] = [];
  requireSharedSecrets(config);
  const masterKey = chooseMasterKey(config, warnings);
  warnings.push(...configurationWarnings(config));
  const adminToken = adminTokenOf(config);
  const { store, box, lockHeld, paymentCodes } = await openKeyedStore(
    config,
    log,
    masterKey,
    opts.now ?? Date.now,
  );
  const clock = createDatabaseClock({
    base: opts.now ?? Date.now,
    databaseTime: () => store.databaseTime(),
    log,
  });
  if (opts.clockFromDatabase ?? opts.now === undefined) await clock.start();
  const now = clock.now;
  const repos = createRepositories(store);
  const nameKeys = nameKeyJob(repos, log);
  if (store.dialect === "sqlite") {
    const freed = await repos.callbacks.releaseAllLeases();
    if (freed > 0)
      log.warn({ callbacks: freed }, "resuming callbacks that were in flight when the server stopped");
  }
  const brokenSeal = createBrokenSealReport(log, () => performance.now());
  const firms = createFirmDirectory(repos.firms, box, now, (firmId) =>
    brokenSeal(
      `firm:${firmId}`,
      { firmId },
      "a firm's sealed secret key does not open (altered or copied from another row): its requests are refused until its secret is rotated",
    ),
  );
  const callbackTargetAllowed = createCallbackTargetCheck({ allowPrivate: config.allowPrivateCallbacks });
  const metrics = createMetrics();
  const routing = createDepositRouting({
    repos,
    box,
    metrics,
    log,
    routingDeadlineMs: config.routingDeadlineMs,
    defaultCapShare: config.defaultCapShare,
    allowPrivateChannels: config.allowPrivateCallbacks,
    announceChannelDown: (channelId) => store.changes.announce(`channel-down:${channelId}`),
    brokenSeal,
    now,
  });
  const queueNotices = queueNoticesOf(store, log);
  const boundNotices = createPendingBoundNotices({ repos, log, now });
  const intake = intakePorts({
    store,
    repos,
    box,
    route: routing.route,
    queueNotices,
    pendingBoundReached: boundNotices.reached,
    now,
  });
  const ctx: AppContext = {
    config,
    repos,
    firms,
    box,
    rateLimiter: rateLimiterOf(store, repos, now, log),
    callbackTargetAllowed,
    intake,
    hosted: createHostedSessions({ repos, box, intake, paymentCodes, now }),
    paymentCodes,
    adminToken,
    settle: () => store.settle(),
    ping: () => store.ping(),
    servingLockHeld: lockHeld,
    metrics,
    queueNotices,
    draining: false,
    now,
  };
  const { sender, outbox } = deliveryOf({ config, repos, firms, metrics, store, now, log });
  observeGauges(metrics, repos, routing, outbox);
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
  const feedWatch = createFeedWatch({ feeds: repos.feeds, now, intervalMs: FEED_WATCH_MS, log });
  const payoutChannels = payoutChannelsOf(config, { repos, box, now, log, outbox, queueNotices });
  const announce = announcerOf(store, log);
  heedChanges(store, firms, routing, queueNotices);
  const backoffice = createBackoffice({
    repos,
    box,
    callbackTargetAllowed,
    httpsChannelsOnly: !config.allowPrivateCallbacks,
    // Here at once; on the other instances as soon as PostgreSQL tells them (store/engine/change-feed.ts).
    firmsChanged: () => {
      firms.evictAll();
      routing.invalidate();
      announce("firms");
    },
    accountsChanged: () => {
      routing.invalidate();
      announce("accounts");
    },
    callbackQueued: () => outbox.poke(),
    releasePayouts: payoutChannels.release,
    decided: () => queueNotices.changed(),
    channelHealth: () => new Map([...routing.breakers()].map(([id, b]) => [id, b.mode])),
    callbackReceivers: () => outbox.receivers(),
    now,
  });
  const consoleService = createConsoleService({
    repos,
    box,
    now,
    secondFactorRequired: config.consoleSecondFactorRequired,
    undoSeconds: config.consoleUndoSeconds,
    idleMinutes: config.consoleIdleMinutes,
    defaultCapShare: config.defaultCapShare,
    onError: (err) => log.warn({ err }, "console sign-in count not kept up to date"),
  });
  const runtime = {
    ctx,
    backoffice,
    consoleService,
    store,
    outbox,
    autoCancel,
    feedWatch,
    payoutChannels,
    nameKeys,
    sender,
    clock,
  };
  return { ...runtime, depositRouting: routing, warnings };
}

export interface PayoutChannels {
  /** Releases a batch through its account's channel (payouts/channel-release.ts). */
  release(batchId: number, actor: string): ReturnType<typeof releaseBatch>;
  /** Sent payouts: channel statuses asked, overdue ones raised (jobs/payout-watch.ts). */
  watch: PayoutWatch;
  /** The payout channels' client: its requests in flight are cut short at stop. */
  client: PayoutChannelClient;
}

/** The release and the watch share one client and one set of attempts in flight in this process. */
function payoutChannelsOf(
  config: Config,
  deps: {
    repos: Repositories;
    box: SecretBox;
    now(): number;
    log: RuntimeLog;
    outbox: OutboxWorker;
    queueNotices: { changed(): void };
  },
): PayoutChannels {
  const client = createPayoutChannelClient({ allowPrivate: config.allowPrivateCallbacks });
  const channelDeps = {
    repos: deps.repos,
    box: deps.box,
    client,
    now: deps.now,
    // A payment's callback goes out at once, as an operator's decision's does.
    paid: () => {
      deps.outbox.poke();
      deps.queueNotices.changed();
    },
    changed: () => deps.queueNotices.changed(),
    log: deps.log,
    busy: new Set<number>(),
  };
  return {
    release: (batchId, actor) => releaseBatch(channelDeps, batchId, actor),
    watch: createPayoutWatch({ ...channelDeps, intervalMs: config.payoutWatchIntervalMs }),
    client,
  };
}

function nameKeyJob(repos: Repositories, log: RuntimeLog): NameKeyJob {
  return createNameKeyJob({
    transactions: repos.transactions,
    done: (filled) => {
      if (filled > 0)
        log.info({ transactions: filled }, "payer names of earlier transactions made searchable");
    },
    failed: (err) => log.error({ err }, "payer names of earlier transactions not made searchable"),
  });
}

/** What this instance forgets or learns when any instance on the store tells of a change. */
function heedChanges(
  store: Store,
  firms: FirmDirectory,
  routing: DepositRouting,
  queueNotices: ReturnType<typeof queueNoticesOf>,
) {
  store.changes.onChange((topic) => {
    if (topic === "firms" || topic === "all") firms.evictAll();
    // The pool carries the live firms too (who shares the daily caps).
    if (topic === "accounts" || topic === "firms" || topic === "all") routing.invalidate();
    if (topic === "queue" || topic === "all") queueNotices.heard();
    if (topic.startsWith("channel-down:")) routing.heardDown(Number(topic.slice("channel-down:".length)));
  });
}

/** On PostgreSQL every instance's consoles hear of a queue change, through the database (store/engine/change-feed.ts). */
function queueNoticesOf(store: Store, log: RuntimeLog) {
  return createQueueNotices({
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
}

/** Intake's ports onto the store, routing and the consoles. */
function intakePorts(deps: {
  store: Store;
  repos: Repositories;
  box: SecretBox;
  route: IntakePorts["route"];
  queueNotices: { changed(): void };
  pendingBoundReached(firmId: number): void;
  now(): number;
}): IntakePorts {
  const { store, repos, box } = deps;
  return {
    businessFacts: (firmId, reference, userId, type) =>
      repos.transactions.businessFacts(firmId, reference, userId, type),
    route: deps.route,
    async insert(tx) {
      try {
        return await repos.transactions.insert(tx);
      } catch (cause) {
        const unknown = writeMayHaveHappened(cause, store.dialect);
        return { ok: false, failed: unknown ? "outcome_unknown" : "nothing_written", cause };
      }
    },
    queued: () => deps.queueNotices.changed(),
    pendingBoundReached: deps.pendingBoundReached,
    async holderOf(firmId, reference) {
      const row = await repos.transactions.findByReference(firmId, reference);
      return row && { accountId: row.account_id, amountMinor: row.amount };
    },
    sealNationalId: (value, firmId, reference) => box.seal(value, sealContext.nationalId(firmId, reference)),
    now: deps.now,
  };
}

function observeGauges(
  metrics: Metrics,
  repos: Repositories,
  routing: DepositRouting,
  outbox: OutboxWorker,
): void {
  metrics.observe({
    callbackCounts: () => repos.callbacks.countOpen(),
    callbackReceivers: () => outbox.receivers(),
    async breakers() {
      const states = routing.breakers();
      const codes = new Map<string, string>();
      for (const c of await repos.channels.list()) codes.set(c.code, states.get(c.id)?.mode ?? "closed");
      return codes;
    },
  });
}

/** One instance (the embedded store) limits exactly in memory; on PostgreSQL the limit is shared. */
function rateLimiterOf(store: Store, repos: Repositories, now: () => number, log: RuntimeLog) {
  return store.dialect === "postgres"
    ? createSharedRateLimiter({
        store: repos.rateWindows,
        now,
        onError: (err) =>
          log.warn({ err }, "rate limits cannot be shared now: each instance limits on its own"),
      })
    : createRateLimiter(now);
}

/**
 * The callbacks' sender and worker; on PostgreSQL the worker is told of callbacks queued on other
 * instances at once (callback-notices.ts).
 */
function deliveryOf(deps: {
  config: Config;
  repos: Repositories;
  firms: FirmDirectory;
  metrics: AppContext["metrics"];
  store: Store;
  now(): number;
  log: RuntimeLog;
}): { sender: CallbackSender; outbox: OutboxWorker } {
  const { config, repos, firms, metrics, store, now, log } = deps;
  const { sender, outbox } = createCallbackDelivery({
    settings: config.callbacks,
    allowPrivate: config.allowPrivateCallbacks,
    callbacks: repos.callbacks,
    secretOf: (firmId) => firms.secretOf(firmId),
    onAttempt: (outcome) => metrics.callbackDeliveries.inc({ outcome }),
    settle: () => store.settle(),
    now,
    log,
  });
  const feed = store.dialect === "postgres" ? store.changes : undefined;
  const shared = sharedOutbox(outbox, feed, (err) =>
    log.warn(
      { err },
      "could not tell the other workers of queued callbacks; they find them at their next poll",
    ),
  );
  return { sender, outbox: shared };
}

function announcerOf(store: Store, log: RuntimeLog) {
  return (topic: ChangeTopic) =>
    void store.changes.announce(topic).catch((err: unknown) => {
      log.warn(
        { err, topic },
        "could not tell other instances of a change; their caches catch up within a second",
      );
    });
}
