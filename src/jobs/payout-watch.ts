/**
 * Watches sent payouts (docs/channels.md, "Payout channels"; issue 47):
 *
 * - a payout sent through an http channel whose outcome is not final (accepted, or unknown) has its
 *   status asked, never its order sent again; the answer is applied as a send's would be
 *   (payouts/channel-outcomes.ts): paid (approved where the account allows it), returned, refused,
 *   a mismatch flagged; still unknown, left for the next round;
 * - a sent payout whose debit has not shown by `overdueAt(method, sent_at)` (FAST an hour, EFT two
 *   business days) is flagged `overdue` once, audited, and never decided by itself.
 *
 * Runs on every instance that runs jobs. On PostgreSQL with several, each question is claimed first
 * by a compare-and-set of the attempt's `updated_at` (store/payouts/payout-watch.ts): one instance
 * asks, the others skip it, and the same claim spaces questions by the interval. Flags are
 * conditional updates, raised and audited once. Were two questions to learn "paid" all the same,
 * paying is conditional on the attempt being sent: it pays once.
 */

import {
  type ChannelOutcome,
  orderOf,
  type PayoutChannelDeps,
  payoutChannelInfo,
  settleAnswer,
} from "../payouts/channel-outcomes.js";
import { eachAtMost } from "../payouts/channel-release.js";
import type { PayoutChannelInfo } from "../payouts/channels/payout-channel.js";
import { OVERDUE_FAST_MS, overdueAt } from "../payouts/rules.js";
import { settingsSnapshot } from "../payouts/settings-store.js";
import type { WatchedAttempt } from "../store/payouts/payout-watch.js";

export const PAYOUT_WATCH_ACTOR = "service:payout-watch";
/** Attempts asked about, and attempts looked at for overdue, per round. */
const ROUND_LIMIT = 200;
/** Status questions in flight at once, per instance. */
const ASK_CONCURRENCY = 4;
/** Two business days are at least two calendar days: EFT payouts sent since are not read. */
const EFT_MIN_OVERDUE_MS = 2 * 86_400_000;

export interface PayoutWatchRound {
  /** What each status question did. */
  asked: Partial<Record<ChannelOutcome, number>>;
  /** Attempts flagged overdue in this round. */
  overdue: number[];
}

export interface PayoutWatch {
  start(): void;
  /** One round: status questions, then overdue payouts. */
  tick(): Promise<PayoutWatchRound>;
  /** No further round; resolves when the one running ends. */
  stop(): Promise<void>;
}

export function createPayoutWatch(deps: PayoutChannelDeps & { intervalMs: number }): PayoutWatch {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<PayoutWatchRound> | undefined;

  async function round(): Promise<PayoutWatchRound> {
    const asked = await askStatuses(deps);
    const overdue = await flagOverdue(deps);
    // A batch whose last payouts ended in parallel, or in a process stopped before its own sweep.
    await deps.repos.payoutOutcomes.closeDone(deps.now());
    return { asked, overdue };
  }

  function tick(): Promise<PayoutWatchRound> {
    running ??= round().finally(() => {
      running = undefined;
    });
    return running;
  }

  return {
    start() {
      timer = setInterval(() => {
        if (running) return;
        tick().catch((err) => deps.log.warn({ err }, "sent payouts not watched this round"));
      }, deps.intervalMs);
      timer.unref();
    },
    tick,
    async stop() {
      if (timer) clearInterval(timer);
      timer = undefined;
      await running?.catch(() => undefined);
    },
  };
}

async function askStatuses(
  deps: PayoutChannelDeps & { intervalMs: number },
): Promise<PayoutWatchRound["asked"]> {
  const now = deps.now();
  const due = (await deps.repos.payoutWatch.dueForStatus(now - deps.intervalMs, ROUND_LIMIT)).filter(
    (a) => !deps.busy.has(a.id),
  );
  if (due.length === 0) return {};
  const settings = await settingsSnapshot(deps.repos);
  const channels = new Map<number, PayoutChannelInfo | undefined>();
  const asked: PayoutWatchRound["asked"] = {};
  await eachAtMost(ASK_CONCURRENCY, due, async (a) => {
    const channel = await channelOf(deps, channels, a);
    if (!channel || deps.busy.has(a.id)) return;
    if (!(await deps.repos.payoutWatch.claim(a.id, Number(a.updated_at), deps.now()))) return;
    deps.busy.add(a.id);
    try {
      const answer = await deps.client.status(channel, orderOf(a));
      const approves = settings.inForce(a.firm_id, a.account_id).channelFinalApproves;
      const outcome = await settleAnswer(deps, a, channel, answer, { approves, question: "status" });
      asked[outcome] = (asked[outcome] ?? 0) + 1;
    } catch (err) {
      deps.log.warn({ err, attempt: a.id }, "a payout's status was not recorded; it is asked again");
    } finally {
      deps.busy.delete(a.id);
    }
  });
  return asked;
}

/** The channel of an attempt's account, opened once per round (undefined: it cannot be asked). */
async function channelOf(
  deps: PayoutChannelDeps,
  cache: Map<number, PayoutChannelInfo | undefined>,
  a: WatchedAttempt,
): Promise<PayoutChannelInfo | undefined> {
  const id = Number(a.channel_id);
  if (!cache.has(id)) {
    const info = payoutChannelInfo(deps.box, await deps.repos.payoutWatch.channelOfAccount(a.account_id));
    if (!info.ok) deps.log.warn({ channel: id, why: info.why }, "sent payouts' status cannot be asked");
    cache.set(id, info.ok ? info.channel : undefined);
  }
  return cache.get(id);
}

/** Raises each sent payout past its time, once: operators decide, the watch never does. */
async function flagOverdue(deps: PayoutChannelDeps): Promise<number[]> {
  const now = deps.now();
  const fast = await deps.repos.payoutWatch.sentUnflagged("FAST", now - OVERDUE_FAST_MS, ROUND_LIMIT);
  const eft = await deps.repos.payoutWatch.sentUnflagged("EFT", now - EFT_MIN_OVERDUE_MS, ROUND_LIMIT);
  const flagged: number[] = [];
  for (const a of [...fast, ...eft]) {
    const due = overdueAt(a.method, Number(a.sent_at));
    if (due > now) continue;
    const raised = await deps.repos.payoutWatch.flagIfNone({
      attemptId: a.id,
      flag: "overdue",
      actor: PAYOUT_WATCH_ACTOR,
      now,
      detail: {
        payment_id: a.payment_id,
        method: a.method,
        sent_at: new Date(Number(a.sent_at)).toISOString(),
        overdue_at: new Date(due).toISOString(),
      },
    });
    if (raised) flagged.push(a.id);
  }
  if (flagged.length > 0) {
    deps.log.warn({ attempts: flagged }, "sent payouts overdue: their debits have not shown");
    deps.changed();
  }
  return flagged;
}
