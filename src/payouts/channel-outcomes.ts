/**
 * What a payout channel's answer does to a sent attempt (docs/channels.md, "Payout channels"), for
 * the release (channel-release.ts) and the watch (jobs/payout-watch.ts) alike:
 *
 * - `paid`: final for the channel. Where the account's `channelFinalApproves` allows, the attempt
 *   is paid with its withdrawal's approval and callback in one database transaction; otherwise it
 *   stays sent and the statement proves it.
 * - `accepted`: stays sent; the watch asks again.
 * - `refused`: failed, back to the operators with the reason.
 * - `returned`: back to the operators with the reason (flagged when approved already).
 * - `unknown` to a send: flagged `channel_unknown`; the attempt is never sent again blindly, only its
 *   status asked. To a status query: left as it is (the overdue rule raises it in time), but when
 *   the partner says it never heard of the payment id, it is sent under that same id.
 * - `mismatch`: flagged `channel_mismatch`, and never approved on any later answer.
 *
 * Every move is the store's conditional one (`WHERE stage = 'sent'`): a channel's answer and a
 * statement line, or two instances, pay an attempt once.
 */
import { callbackDraft } from "../callbacks/message.js";
import { sealContext } from "../crypto/seal-context.js";
import { openOrUndefined, type SecretBox } from "../crypto/secret-box.js";
import { approvalPosting } from "../ledger/approval-posting.js";
import type { Repositories } from "../store/index.js";
import type { PayoutAttemptRow } from "../store/payouts/payout-batches.js";
import { CHANNEL_MISMATCH, CHANNEL_UNKNOWN, type PaidAccountChannel } from "../store/payouts/payout-watch.js";
import type {
  PayoutAnswer,
  PayoutChannelClient,
  PayoutChannelInfo,
  PayoutOrder,
} from "./channels/payout-channel.js";

/** Who moves a payout on a channel's word, in the audit log and as the withdrawal's decider. */
export const PAYOUT_CHANNEL_ACTOR = "service:payout-channel";

export interface PayoutChannelDeps {
  repos: Repositories;
  box: SecretBox;
  client: PayoutChannelClient;
  now(): number;
  /** After a withdrawal was approved: its callback goes out at once, the consoles are told. */
  paid(): void;
  /** After attempts moved or were flagged: the consoles' screens are told. */
  changed(): void;
  log: { warn(obj: object, msg: string): void; info(obj: object, msg: string): void };
  /**
   * Attempts this process is sending or asking about now. An attempt is in one request at a time
   * here; across instances, the watch's claim (store/payouts/payout-watch.ts) does the same.
   */
  busy: Set<number>;
}

/** What became of an attempt after one answer. */
export type ChannelOutcome =
  | "paid"
  | "awaiting_statement"
  | "accepted"
  | "failed"
  | "returned"
  | "unknown"
  | "mismatch"
  /** The attempt was no longer sent (a statement line or another instance moved it first). */
  | "moved";

/** A sent attempt as a channel is told of it, with its withdrawal's merchant reference. */
export type ChannelAttempt = PayoutAttemptRow & { reference: string };

/** Why a channel cannot carry payouts, in words for operators; or the channel as the client needs it. */
export function payoutChannelInfo(
  box: SecretBox,
  row: PaidAccountChannel | undefined,
): { ok: true; channel: PayoutChannelInfo } | { ok: false; why: string } {
  if (row?.kind !== "http")
    return {
      ok: false,
      why: "the account is paid from by hand (no http channel): upload the batch's file to the bank, then mark it sent",
    };
  if (row.active !== 1) return { ok: false, why: `its channel ${row.code} is inactive` };
  if (!row.url || !row.secret_sealed)
    return { ok: false, why: `its channel ${row.code} has no URL or secret` };
  const secret = openOrUndefined(box, row.secret_sealed, sealContext.channelSecret(row.id));
  if (secret === undefined)
    return { ok: false, why: `its channel ${row.code}'s secret does not open: rotate it` };
  return {
    ok: true,
    channel: { id: row.id, code: row.code, url: row.url, secret, timeoutMs: row.timeout_ms },
  };
}

/** The order of an attempt: its payment id, and the merchant's reference after it in the text. */
export function orderOf(a: ChannelAttempt): PayoutOrder {
  return {
    paymentId: a.payment_id,
    amountMinor: Number(a.amount),
    iban: a.payee_iban,
    name: a.payee_name,
    description: `${a.payment_id} ${a.reference}`.slice(0, 140),
    method: a.method,
  };
}

/** Applies one answer to a sent attempt. `approves`: the account's `channelFinalApproves`. */
export async function settleAnswer(
  deps: PayoutChannelDeps,
  a: ChannelAttempt,
  channel: PayoutChannelInfo,
  answer: PayoutAnswer,
  opts: { approves: boolean; question: "send" | "status" },
): Promise<ChannelOutcome> {
  const now = deps.now();
  const attemptId = a.id;
  switch (answer.outcome) {
    case "paid": {
      // A mismatch is never approved, whatever the channel says after.
      if (!opts.approves || a.flag === CHANNEL_MISMATCH) return clear(deps, a, "awaiting_statement");
      const outcome = await payNow(deps, a, channel, now);
      if (outcome === "paid") await deps.repos.payoutWatch.liftUnknown(attemptId, now);
      return outcome;
    }
    case "accepted":
      return clear(deps, a, "accepted");
    case "refused": {
      const failed = await deps.repos.payoutOutcomes.fail(
        attemptId,
        answer.reason,
        PAYOUT_CHANNEL_ACTOR,
        now,
      );
      return moved(deps, failed ? "failed" : "moved");
    }
    case "returned": {
      const r = await deps.repos.payoutOutcomes.returned({
        attemptId,
        reason: answer.reason,
        actor: PAYOUT_CHANNEL_ACTOR,
        now,
      });
      return moved(deps, r === "moved" ? "moved" : "returned");
    }
    case "unknown": {
      if (opts.question === "status") {
        if (answer.cause !== "not_found") return "unknown";
        // The partner never heard of it: a release stopped before this payout was sent. Sent now
        // under its own payment id, the idempotency key: a partner that had it after all answers
        // as before, and pays nothing twice.
        const sent = await deps.client.send(channel, orderOf(a));
        return settleAnswer(deps, a, channel, sent, { ...opts, question: "send" });
      }
      const detail = { channel: channel.code, cause: answer.cause, why: answer.why };
      await flag(deps, a, CHANNEL_UNKNOWN, detail, now);
      return "unknown";
    }
    case "mismatch": {
      const detail = { channel: channel.code, field: answer.field, why: answer.why };
      await flag(deps, a, CHANNEL_MISMATCH, detail, now);
      return "mismatch";
    }
  }
}

async function payNow(
  deps: PayoutChannelDeps,
  a: ChannelAttempt,
  channel: PayoutChannelInfo,
  now: number,
): Promise<ChannelOutcome> {
  const firm = await deps.repos.firms.get(a.firm_id);
  const middle = firm?.callback_middle_name === 1;
  const paid = await deps.repos.payoutOutcomes.pay({
    attemptIds: [a.id],
    lineId: null,
    actor: PAYOUT_CHANNEL_ACTOR,
    now,
    decision: (transactionId) => ({
      transactionId,
      status: "approved",
      amount: Number(a.amount),
      originalAmount: null,
      decidedBy: PAYOUT_CHANNEL_ACTOR,
      note: `paid: payout channel ${channel.code} answered paid for ${a.payment_id}`,
      now,
      callback: (decided) => callbackDraft(decided, { callbackMiddleName: middle }),
      posting: approvalPosting,
    }),
  });
  if (paid.length === 0) return "moved";
  deps.paid();
  return "paid";
}

/** A clear answer after an unknown one lifts the `channel_unknown` flag. */
async function clear(
  deps: PayoutChannelDeps,
  a: ChannelAttempt,
  outcome: ChannelOutcome,
): Promise<ChannelOutcome> {
  if (a.flag === CHANNEL_UNKNOWN) {
    await deps.repos.payoutWatch.liftUnknown(a.id, deps.now());
    deps.changed();
  }
  return outcome;
}

function moved(deps: PayoutChannelDeps, outcome: ChannelOutcome): ChannelOutcome {
  if (outcome !== "moved") deps.changed();
  return outcome;
}

async function flag(
  deps: PayoutChannelDeps,
  a: ChannelAttempt,
  name: string,
  detail: Record<string, unknown>,
  now: number,
): Promise<void> {
  const raised = await deps.repos.payoutWatch.flagChannel({
    attemptId: a.id,
    flag: name,
    actor: PAYOUT_CHANNEL_ACTOR,
    now,
    detail: { payment_id: a.payment_id, ...detail },
  });
  if (!raised) return;
  deps.log.warn({ attempt: a.id, flag: name, ...detail }, "payout raised to the operators");
  deps.changed();
}
