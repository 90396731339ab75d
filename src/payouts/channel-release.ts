/**
 * Releasing a batch through its paying account's payout channel (docs/channels.md, "Payout
 * channels"): the batch is marked sent (once: the store's conditional move), then each attempt is
 * sent to the channel with its payment id as the idempotency key, a few at a time, and each answer
 * is applied (channel-outcomes.ts).
 *
 * Crash safety: the batch and its attempts are `sent` before the first byte leaves, and a release
 * runs only for the caller whose markSent moved the batch, so no attempt is sent by two releases.
 * A process that dies mid-release leaves attempts `sent` with no answer: the watch
 * (jobs/payout-watch.ts) asks their status, and sends one the partner never heard of. Each send,
 * the release's and the watch's, first takes the attempt by the same claim: one of them sends it.
 */
import { notFound, type Outcome, refusal } from "../domain/refusal.js";
import {
  type ChannelOutcome,
  orderOf,
  type PayoutChannelDeps,
  payoutChannelInfo,
  settleAnswer,
} from "./channel-outcomes.js";
import type { PayoutChannelInfo } from "./channels/payout-channel.js";
import { settingsSnapshot } from "./settings-store.js";
import { batchView, type PayoutBatchView } from "./views.js";

/** Sends in flight per release: a partner's API is not flooded, and a batch still goes in seconds. */
export const RELEASE_CONCURRENCY = 4;

export type ReleaseCounts = Record<ChannelOutcome, number>;

export interface ReleaseView extends PayoutBatchView {
  /** What each attempt's answer did, counted. */
  outcomes: ReleaseCounts;
}

const noCounts = (): ReleaseCounts => ({
  paid: 0,
  awaiting_statement: 0,
  accepted: 0,
  failed: 0,
  returned: 0,
  unknown: 0,
  mismatch: 0,
  moved: 0,
});

export async function releaseBatch(
  deps: PayoutChannelDeps,
  batchId: number,
  actor: string,
): Promise<Outcome<ReleaseView>> {
  const { repos } = deps;
  const batch = await repos.payoutBatches.get(batchId);
  if (!batch) return notFound("payout_batch");
  const channel = payoutChannelInfo(
    deps.box,
    await deps.repos.payoutWatch.channelOfAccount(batch.account_id),
  );
  if (!channel.ok)
    return refusal(
      "payout_account_unusable",
      `the batch cannot be released through a channel: ${channel.why}`,
    );
  const moved = await repos.payoutBatches.markSent(batchId, actor, deps.now());
  if (!moved.ok) {
    if (moved.reason === "not_found") return notFound("payout_batch");
    if (moved.reason === "stage" && moved.stage === "second_approval")
      return refusal("payout_second_approval_pending", "the batch waits for a second operator's approval");
    const stage = moved.reason === "stage" ? moved.stage : "moved";
    return refusal(
      "payout_batch_stage",
      `the batch is ${stage}: only a batch ready to send is released, once (the watch asks a sent payout's status)`,
    );
  }
  deps.changed();
  const sentAt = moved.batch.sent_at;
  const attempts = (await repos.payoutBatches.fileRowsOf(batchId)).filter(
    (a) => a.stage === "sent" && a.sent_at === sentAt,
  );
  const settings = await settingsSnapshot(repos);
  const counts = noCounts();
  await eachAtMost(RELEASE_CONCURRENCY, attempts, async (a) => {
    const approves = settings.inForce(a.firm_id, a.account_id).channelFinalApproves;
    counts[await sendOnce(deps, channel.channel, a, approves)]++;
  });
  const after = (await repos.payoutBatches.get(batchId)) ?? moved.batch;
  return {
    ok: true,
    value: {
      ...batchView(after, channel.channel.code, await repos.payoutBatches.attemptsOf(batchId)),
      outcomes: counts,
    },
  };
}

/** One attempt sent, never twice in this process; a failure of ours after the send leaves it sent. */
async function sendOnce(
  deps: PayoutChannelDeps,
  channel: PayoutChannelInfo,
  a: Parameters<typeof orderOf>[0] & { updated_at: number },
  approves: boolean,
): Promise<ChannelOutcome> {
  if (deps.busy.has(a.id)) return "moved";
  deps.busy.add(a.id);
  try {
    // Another instance's watch may reach an attempt before this release does (a long batch, a
    // stalled process), learn that the partner never heard of it, and send it itself. Both take
    // the attempt by the watch's claim (a compare-and-set of `updated_at`) before sending: one sends.
    if (!(await deps.repos.payoutWatch.claim(a.id, a.updated_at, deps.now()))) return "moved";
    const answer = await deps.client.send(channel, orderOf(a));
    return await settleAnswer(deps, a, channel, answer, { approves, question: "send" });
  } catch (err) {
    // The answer is not recorded: the attempt stays sent and the watch asks its status.
    deps.log.warn(
      { err, attempt: a.id },
      "a payout channel's answer was not recorded; its status is asked later",
    );
    return "unknown";
  } finally {
    deps.busy.delete(a.id);
  }
}

/** Runs `work` over `items`, at most `limit` at once. */
export async function eachAtMost<T>(limit: number, items: readonly T[], work: (item: T) => Promise<void>) {
  let next = 0;
  const lanes = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const item = items[next++] as T;
      await work(item);
    }
  });
  await Promise.all(lanes);
}
