/**
 * Payouts, as operators work them (docs/payouts.md): the withdrawals waiting, batches made,
 * approved by a second operator where the rules ask, their bank files, marked sent once, or
 * cancelled before. The rules are rules.ts's and settings.ts's; the store writes each move with its
 * audit entry, and the database keeps the money rules (migration 20261206T1000).
 */

import type { PayoutScope } from "../domain/payout-settings.js";
import { notFound, type Outcome, refusal } from "../domain/refusal.js";
import type { Repositories } from "../store/index.js";
import type { PayoutAttemptRow, PayoutBatchRow } from "../store/payouts/payout-batches.js";
import { roomsByFirm } from "../store/payouts/payout-guard.js";
import type { PayoutBatchStage } from "../store/schema.js";
import { type BatchRequest, createBatch } from "./batching.js";
import { type BatchFileDownload, batchFileOf } from "./file-download.js";
import { roomTaker } from "./rules.js";
import { type SettingsChange, settingsIn, updateSettings } from "./settings-change.js";
import { settingsSnapshot } from "./settings-store.js";
import { addTemplate, listTemplates } from "./templates.js";
import {
  attemptView,
  batchView,
  type FlaggedPayoutView,
  type PayoutBatchView,
  waitingView,
} from "./views.js";

export interface PayoutDeps {
  repos: Repositories;
  now(): number;
  /** After batches moved: the consoles' screens are told. */
  changed(): void;
}

/** Who gives a second approval: only a signed-in console operator names a person for sure. */
export type SecondApprover = { kind: "console"; actor: string } | { kind: "admin_api" };

const stageRefusal = (stage: PayoutBatchStage, doing: string) =>
  stage === "second_approval"
    ? refusal("payout_second_approval_pending", "the batch waits for a second operator's approval")
    : refusal("payout_batch_stage", `the batch is ${stage}: it cannot be ${doing}`);

export function createPayoutService(deps: PayoutDeps) {
  const { repos } = deps;
  const moved = <T>(outcome: Outcome<T>) => {
    if (outcome.ok) deps.changed();
    return outcome;
  };
  return {
    waiting: (filter: WaitingFilter) => waiting(deps, filter),
    flagged: (limit: number) => flagged(deps, limit),
    clearFlag: async (attemptId: number, flag: string, actor: string, note: string | null) =>
      moved(await clearFlag(deps, { attemptId, flag, actor, note })),
    createBatch: async (request: BatchRequest, actor: string) =>
      moved(await createBatch(deps, request, actor)),
    approve: async (id: number, who: SecondApprover) => moved(await approve(deps, id, who)),
    markSent: async (id: number, actor: string) => moved(await markSent(deps, id, actor)),
    cancel: async (id: number, actor: string, note: string | null) =>
      moved(await cancel(deps, id, actor, note)),
    show: (id: number) => show(deps, id),
    async list(filter: { stage?: PayoutBatchStage | undefined; limit: number }) {
      return { batches: await batchViews(repos, await repos.payoutBatches.list(filter)) };
    },
    file: (id: number, format: string, actor: string): Promise<Outcome<BatchFileDownload>> =>
      batchFileOf(deps, id, format, actor),
    templates: () => listTemplates(repos),
    addTemplate: (json: unknown, actor: string) => addTemplate(deps, json, actor),
    settings: (scope: PayoutScope) => settingsIn(deps, scope),
    updateSettings: (scope: PayoutScope, change: SettingsChange, actor: string) =>
      updateSettings(deps, scope, change, actor),
  };
}

export type PayoutService = ReturnType<typeof createPayoutService>;

export interface WaitingFilter {
  firmId?: number | undefined;
  /** The paying account a batch would be made from: its FAST limit judges each method. */
  accountId?: number | undefined;
  limit: number;
}

async function waiting(deps: PayoutDeps, filter: WaitingFilter) {
  const settings = await settingsSnapshot(deps.repos);
  const account = filter.accountId ?? null;
  if (account !== null && !(await deps.repos.accounts.get(account))) return notFound("account");
  const firms = (await deps.repos.firms.list()).filter(
    (f) => (filter.firmId === undefined || f.id === filter.firmId) && settings.inForce(f.id, account).payouts,
  );
  const rows = await deps.repos.payoutBatches.waiting(
    firms.map((f) => f.id),
    filter.limit,
  );
  const judgedBy = account === null ? "service" : "account";
  const fits = roomTaker(
    roomsByFirm(await deps.repos.payoutBatches.rooms([...new Set(rows.map((r) => r.firm_id))])),
  );
  return {
    ok: true as const,
    value: {
      waiting: rows.map((r) =>
        waitingView(r, settings.inForce(r.firm_id, account).fastLimit, judgedBy, fits),
      ),
    },
  };
}

/** Batches as operators see them, each with its paying account's payout channel (read once for all). */
export async function batchViews(repos: Repositories, batches: readonly PayoutBatchRow[]) {
  const channels = await repos.payoutBatches.payoutChannelsOf([...new Set(batches.map((b) => b.account_id))]);
  return batches.map((b) => batchView(b, channels.get(Number(b.account_id)) ?? null));
}

/** One batch as operators see it, with its payouts when given. */
export async function oneBatchView(
  repos: Repositories,
  batch: PayoutBatchRow,
  attempts?: readonly PayoutAttemptRow[],
): Promise<PayoutBatchView> {
  const channels = await repos.payoutBatches.payoutChannelsOf([batch.account_id]);
  return batchView(batch, channels.get(Number(batch.account_id)) ?? null, attempts);
}

async function show(deps: PayoutDeps, id: number) {
  const batch = await deps.repos.payoutBatches.get(id);
  if (!batch) return notFound("payout_batch");
  const attempts = await deps.repos.payoutBatches.attemptsOf(id);
  return { ok: true as const, value: await oneBatchView(deps.repos, batch, attempts) };
}

/** Attempts carrying a flag, across batches, newest first: what operators check. */
async function flagged(deps: PayoutDeps, limit: number): Promise<{ flagged: FlaggedPayoutView[] }> {
  const rows = await deps.repos.payoutBatches.flagged(limit);
  return {
    flagged: rows.map((r) => ({ ...attemptView(r), reference: r.reference, firm_id: Number(r.firm_id) })),
  };
}

async function clearFlag(
  deps: PayoutDeps,
  c: { attemptId: number; flag: string; actor: string; note: string | null },
): Promise<Outcome<{ attempt: number; transaction_id: number; flag: null }>> {
  const cleared = await deps.repos.payoutBatches.clearFlag({ ...c, now: deps.now() });
  if (cleared.ok)
    return { ok: true, value: { attempt: c.attemptId, transaction_id: cleared.transactionId, flag: null } };
  if (cleared.reason === "not_found") return notFound("payout_attempt");
  if (cleared.reason === "live")
    return refusal(
      "payout_flag_live",
      "the payout is still sent: its flag lifts when the bank's statement or the channel answers",
    );
  return refusal(
    "payout_flag_changed",
    `the payout's flag is ${cleared.flag ?? "none"}, not ${c.flag}: look at it again`,
  );
}

async function approve(deps: PayoutDeps, id: number, who: SecondApprover) {
  // A batch that is not there is said so to anyone, the admin token included.
  if (!(await deps.repos.payoutBatches.get(id))) return notFound("payout_batch");
  if (who.kind === "admin_api")
    return refusal(
      "payout_second_needs_operator",
      "the admin token names no one for sure: a signed-in console operator gives the second approval",
    );
  const moved = await deps.repos.payoutBatches.approve(id, who.actor, deps.now());
  if (moved.ok) return { ok: true as const, value: await oneBatchView(deps.repos, moved.batch) };
  if (moved.reason === "not_found") return notFound("payout_batch");
  if (moved.reason === "same_operator")
    return refusal("payout_second_same_operator", "the operator who made the batch cannot approve it");
  return refusal(
    "payout_batch_stage",
    `the batch is ${moved.stage}: only a batch waiting for a second approval is approved`,
  );
}

async function markSent(deps: PayoutDeps, id: number, actor: string) {
  const moved = await deps.repos.payoutBatches.markSent(id, actor, deps.now());
  if (moved.ok) return { ok: true as const, value: await oneBatchView(deps.repos, moved.batch) };
  if (moved.reason === "not_found") return notFound("payout_batch");
  if (moved.reason === "stage") return stageRefusal(moved.stage, "marked sent (a batch is marked sent once)");
  return refusal("payout_batch_stage", "the batch cannot be marked sent");
}

async function cancel(deps: PayoutDeps, id: number, actor: string, note: string | null) {
  const moved = await deps.repos.payoutBatches.cancel(id, actor, deps.now(), note);
  if (moved.ok) return { ok: true as const, value: await oneBatchView(deps.repos, moved.batch) };
  if (moved.reason === "not_found") return notFound("payout_batch");
  return refusal(
    "payout_batch_stage",
    `the batch is ${"stage" in moved ? moved.stage : "moved"}: only a batch not yet sent can be cancelled (money may have left)`,
  );
}
