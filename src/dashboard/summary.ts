import { receiverView } from "../callbacks/outbox-views.js";
import { formatMinor } from "../domain/money.js";
import type { ReceiverReport } from "../domain/receiver-report.js";
import { feedSilent, RECONCILE_ACTOR } from "../domain/statement-lines.js";
import { startOfTurkeyDay } from "../domain/turkey-time.js";
import type { Repositories } from "../store/index.js";
import type { FeedRow } from "../store/statements/statement-feeds.js";
import type { CreditFigures } from "../store/statements/summary-line-figures.js";
import type { HourTotal } from "../store/transactions/summary-figures.js";
import { firmsAtPendingBound } from "./pending-bounds.js";

/**
 * Failed callbacks are counted up to this many on the summary: past it the card says "10.000+"
 * (operators resend them by firm and time, never one by one), and counting the rest would read
 * hundreds of thousands of rows on a store of years.
 */
export const FAILED_CALLBACKS_SHOWN = 10_000;

/** Today's figures (day in Türkiye) for the console's dashboard. */
export interface DashboardDeps {
  repos: Repositories;
  now(): number;
  /** Breaker state per channel id on this instance. */
  channelHealth(): ReadonlyMap<number, string>;
  /** Receivers this instance's callback worker sends to, with their speed. */
  callbackReceivers(): ReceiverReport[];
}

/** The console's summary as its route answers it. */
export type DashboardView = Awaited<ReturnType<typeof dashboard>>;

export async function dashboard(deps: DashboardDeps) {
  const { repos } = deps;
  const figures = repos.summaryFigures;
  const now = deps.now();
  const since = startOfTurkeyDay(now);
  const [totals, queues, median, callbacks, delivered, retrying, channels, credits, feeds, pending] =
    await Promise.all([
      figures.totalsSince(since),
      figures.pendingQueues(),
      figures.medianDecisionMsSince(since),
      repos.callbacks.countOpen(FAILED_CALLBACKS_SHOWN),
      figures.deliveredSince(since),
      repos.callbacks.countRetrying(),
      repos.channels.list(),
      figures.credits(since, now + 1, RECONCILE_ACTOR),
      repos.feeds.list(),
      repos.firmPending.list(),
    ]);
  const of = (type: string) => {
    const rows = totals.filter((t) => t.type === type);
    const sum = (status?: string) =>
      rows.filter((r) => status === undefined || r.status === status).reduce((a, r) => a + r.count, 0);
    const volume = (status?: string) =>
      rows.filter((r) => status === undefined || r.status === status).reduce((a, r) => a + r.volume, 0);
    const decided = sum("approved") + sum("rejected");
    const hourly = Array.from({ length: 24 }, () => 0);
    for (const r of rows) {
      const h = Math.floor(r.hour);
      if (h >= 0 && h < 24) hourly[h] = (hourly[h] ?? 0) + r.count;
    }
    const queue = queues.find((q) => q.type === type);
    return {
      count: sum(),
      volume: formatMinor(volume()),
      pending: sum("pending"),
      // Today's figures leave out what is still pending from earlier days; the queue does not.
      pending_all: queue?.count ?? 0,
      oldest_pending_at:
        queue === undefined || queue.oldestAt === null ? null : new Date(queue.oldestAt).toISOString(),
      approved: sum("approved"),
      rejected: sum("rejected"),
      approved_volume: formatMinor(volume("approved")),
      approval_rate: decided === 0 ? null : Math.round((sum("approved") / decided) * 1000) / 1000,
      /** How many were created in each hour of the day so far (Türkiye's hours, 00–23). */
      hourly,
    };
  };
  const health = deps.channelHealth();
  // Only receivers that need a look: slow ones and those with an attempt hanging.
  const troubled = deps.callbackReceivers().filter((r) => r.slow || r.hanging > 0);
  return {
    since: new Date(since).toISOString(),
    deposits: of("deposit"),
    withdrawals: of("withdrawal"),
    median_seconds_to_decision: median === null ? null : Math.round(median / 1000),
    callbacks: {
      pending: callbacks.pending,
      // Today's, like the figures above: a count of every callback ever sent read the whole table.
      delivered,
      failed: Math.min(callbacks.failed, FAILED_CALLBACKS_SHOWN),
      /** There are more than `failed` (FAILED_CALLBACKS_SHOWN): the console shows "10.000+". */
      failed_more: callbacks.failed > FAILED_CALLBACKS_SHOWN,
      // Of the pending ones, those whose receiver failed them already: a merchant refusing
      // every callback shows here at once, not only when they fail for good 45 hours later.
      retrying,
      receivers: troubled.map(receiverView),
    },
    statements: statementFigures(totals, credits, feeds, now),
    /** Firms at a bound of their pending deposits, or refused at one within the hour. */
    pending_bounds: firmsAtPendingBound(pending, deps.now()),
    channels: channels.map((c) => ({
      code: c.code,
      kind: c.kind,
      active: c.active === 1,
      breaker: health.get(c.id) ?? "closed",
    })),
  };
}

/**
 * What the bank statements did today: the share of today's approved deposits a line approved by
 * itself (from the hours' buckets, like the totals: live firms' deposits made today), the median
 * time from a line's arrival to its callback's delivery, the money received that no deposit took
 * yet, and the live feeds silent longer than their accounts allow.
 */
function statementFigures(
  totals: readonly HourTotal[],
  credits: CreditFigures,
  feeds: readonly FeedRow[],
  now: number,
) {
  let approved = 0;
  let auto = 0;
  for (const t of totals)
    if (t.type === "deposit" && t.status === "approved") {
      approved += t.count;
      auto += t.auto;
    }
  const median = credits.creditToCallbackMs;
  return {
    approved_automatically: auto,
    approved_automatically_share: approved === 0 ? null : Math.round((auto / approved) * 1000) / 1000,
    median_seconds_credit_to_callback: median === null ? null : Math.round(median / 100) / 10,
    unmatched_credits: credits.openCredits,
    unmatched_amount: formatMinor(credits.openAmount),
    feeds: feeds.length,
    silent_feeds: feeds.filter((feed) => feedSilent(feed, now)).map((feed) => feed.account_id),
  };
}
