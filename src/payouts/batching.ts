/**
 * Putting waiting withdrawals in a batch: which may go (payouts/rules.ts), by which method, whether a
 * second operator must approve, and the write (store/payouts/payout-batches.ts), read again once if
 * another batching took some of them meanwhile.
 */
import { ADMIN_API } from "../domain/actors.js";
import { formatMinor } from "../domain/money.js";
import type { PayoutSettings } from "../domain/payout-settings.js";
import { notFound, type Outcome, refusal } from "../domain/refusal.js";
import { startOfTurkeyDay } from "../domain/turkey-time.js";
import type { Repositories } from "../store/index.js";
import type { NewAttempt, PayoutBatchRow, WaitingRow } from "../store/payouts/payout-batches.js";
import { roomsByFirm } from "../store/payouts/payout-guard.js";
import { newPaymentId } from "./payment-id.js";
import {
  compactIban,
  NOT_BATCHABLE_WORDS,
  type NotBatchable,
  payeeName,
  payoutMethod,
  roomTaker,
  type SecondRuleView,
  secondApprovalReason,
  secondRuleOf,
  secondRuleView,
  secondRuleWords,
  storedSecondRule,
  type WaitingWithdrawal,
  whyNotBatchable,
  withinRooms,
} from "./rules.js";
import { type SettingsSnapshot, settingsSnapshot } from "./settings-store.js";

/** The most payouts one batch holds: a day's file for a busy firm, well within a bank's upload. */
export const MAX_BATCH = 10_000;

export interface BatchRequest {
  accountId: number;
  firmId?: number | undefined;
  maxCount?: number | undefined;
}

export interface BatchMade {
  batch: number;
  payouts: number;
  total: string;
  stage: "batched" | "second_approval";
  second_reason: string | null;
  second_rule: SecondRuleView | null;
}

export function toWaiting(row: WaitingRow): WaitingWithdrawal {
  return {
    id: row.id,
    firmId: row.firm_id,
    amount: Number(row.amount),
    method: row.method,
    firstName: row.first_name,
    middleName: row.middle_name,
    lastName: row.last_name,
    iban: row.iban,
    firmActive: row.firm_active === 1,
    firmSandbox: row.firm_sandbox === 1,
    payingBy: row.paying_by,
  };
}

/** The firms whose withdrawals are paid in batches from this account (or only `firmId`). */
async function payoutFirms(
  repos: Repositories,
  settings: SettingsSnapshot,
  accountId: number,
  firmId?: number,
) {
  const firms = await repos.firms.list();
  return firms
    .filter((f) => (firmId === undefined || f.id === firmId) && settings.inForce(f.id, accountId).payouts)
    .map((f) => f.id);
}

async function usableAccount(repos: Repositories, settings: SettingsSnapshot, accountId: number) {
  const account = await repos.accounts.get(accountId);
  if (!account) return notFound("account");
  if (account.sandbox === 1) return refusal("payout_account_unusable", "the sandbox account pays nothing");
  if (account.active !== 1) return refusal("payout_account_unusable", "the account is inactive");
  if (settings.scope({ kind: "account", id: accountId }).payouts === false)
    return refusal("payout_account_unusable", "an admin turned payouts off for this account");
  return { ok: true as const, value: account };
}

/** Why nothing could be batched, counted by reason. */
function emptyReason(refused: Map<NotBatchable, number>, firmsOn: number): string {
  if (firmsOn === 0)
    return "no firm pays its withdrawals in batches (payouts are off; `payout settings --payouts true`)";
  if (refused.size === 0) return "no withdrawal is waiting to be paid";
  return [...refused].map(([why, n]) => `${n} ${NOT_BATCHABLE_WORDS[why]}`).join("; ");
}

function rulesOfBatch(
  settings: SettingsSnapshot,
  accountId: number,
  firmIds: Iterable<number>,
): PayoutSettings {
  const each = [...firmIds].map((f) => settings.inForce(f, accountId));
  const lowest = (pick: (s: PayoutSettings) => number | null) => {
    const set = each.map(pick).filter((v): v is number => v !== null);
    return set.length === 0 ? null : Math.min(...set);
  };
  const base = settings.inForce(null, accountId);
  return {
    ...base,
    twoPersonBatchAbove: lowest((s) => s.twoPersonBatchAbove),
    twoPersonPayoutAbove: lowest((s) => s.twoPersonPayoutAbove),
    twoPersonDayAbove: lowest((s) => s.twoPersonDayAbove),
  };
}

export async function createBatch(
  deps: { repos: Repositories; now(): number },
  request: BatchRequest,
  actor: string,
): Promise<Outcome<BatchMade>> {
  const { repos } = deps;
  for (let round = 0; round < 2; round++) {
    const settings = await settingsSnapshot(repos);
    const account = await usableAccount(repos, settings, request.accountId);
    if (!account.ok) return account;
    if (request.firmId !== undefined && !(await repos.firms.get(request.firmId))) return notFound("firm");
    const firmIds = await payoutFirms(repos, settings, request.accountId, request.firmId);
    const max = Math.min(request.maxCount ?? MAX_BATCH, MAX_BATCH);
    const { attempts, refused } = await pickAttempts(repos, settings, request.accountId, firmIds, max);
    if (attempts.length === 0) return refusal("payout_batch_empty", emptyReason(refused, firmIds.length));
    const now = deps.now();
    const written = await repos.payoutBatches.create({
      accountId: request.accountId,
      firmId: request.firmId ?? null,
      // The guard again, in the batch's own transaction under its firms' locks.
      admit: (rooms) => withinRooms(attempts, rooms).fit,
      secondReasonFor: (operatorToday, kept) => {
        const total = kept.reduce((sum, a) => sum + a.amount, 0);
        const largest = Math.max(...kept.map((a) => a.amount));
        const rules = rulesOfBatch(settings, request.accountId, new Set(kept.map((a) => a.firmId)));
        const rule = secondApprovalReason({ total, largest, operatorToday }, rules);
        return rule ? storedSecondRule(rule) : null;
      },
      day: { who: dayOf(actor), since: startOfTurkeyDay(now) },
      actor,
      now,
      attempts,
    });
    if (written.ok) return { ok: true, value: madeView(written.batch) };
  }
  return refusal(
    "payout_batch_contended",
    "other batchings took these withdrawals twice in a row: read the waiting payouts again and retry",
  );
}

/**
 * Whose day a batch counts in: a console operator's own; the admin token's callers all in one, as
 * the name each gives is theirs to choose (splitting a day among names would dodge the rule).
 */
function dayOf(actor: string): { actor: string } | { prefix: string } {
  const prefix = `${ADMIN_API}:`;
  return actor.startsWith(prefix) ? { prefix } : { actor };
}

/** Rows read at a time while looking for what may go. */
const PAGE = 1_000;

/**
 * The first `max` waiting withdrawals that may go, oldest first, and how many were passed over and
 * why. Pages on past those that may not go, so that a pile of them (invalid IBANs waiting for an
 * operator's rejection, payouts beyond a firm's balance) never keeps newer withdrawals out of
 * every batch. Each firm's room (the ledger's guard) is read once and taken oldest first; the
 * batch's write judges it again under the firms' locks.
 */
async function pickAttempts(
  repos: Repositories,
  settings: SettingsSnapshot,
  accountId: number,
  firmIds: number[],
  max: number,
): Promise<{ attempts: NewAttempt[]; refused: Map<NotBatchable, number> }> {
  const refused = new Map<NotBatchable, number>();
  const attempts: NewAttempt[] = [];
  if (firmIds.length === 0) return { attempts, refused };
  const fits = roomTaker(roomsByFirm(await repos.payoutBatches.rooms(firmIds)));
  let after = 0;
  for (;;) {
    const rows = await repos.payoutBatches.waiting(firmIds, PAGE, after);
    for (const row of rows) {
      if (attempts.length >= max) return { attempts, refused };
      const w = toWaiting(row);
      const why = whyNotBatchable(w) ?? (fits(w) ? null : "over_balance");
      if (why) {
        refused.set(why, (refused.get(why) ?? 0) + 1);
        continue;
      }
      attempts.push({
        transactionId: w.id,
        firmId: w.firmId,
        paymentId: newPaymentId(),
        amount: w.amount,
        payeeName: payeeName(w),
        payeeIban: compactIban(w.iban ?? ""),
        method: payoutMethod(w, settings.inForce(w.firmId, accountId).fastLimit),
      });
    }
    if (rows.length < PAGE || attempts.length >= max) return { attempts, refused };
    after = (rows[rows.length - 1] as WaitingRow).id;
  }
}

function madeView(batch: PayoutBatchRow): BatchMade {
  const rule = secondRuleOf(batch.second_reason);
  return {
    batch: batch.id,
    payouts: batch.payouts,
    total: formatMinor(Number(batch.total)),
    stage: batch.stage === "second_approval" ? "second_approval" : "batched",
    second_reason: rule ? secondRuleWords(rule) : batch.second_reason,
    second_rule: rule ? secondRuleView(rule) : null,
  };
}
