/** Managing providers and firms: their callback URLs, limits, switches and secrets. */
import { sealContext } from "../crypto/seal-context.js";
import { callbackOrigin } from "../domain/callback-origin.js";
import { notFound, refusal } from "../domain/refusal.js";
import type { KeptCallbacks } from "../store/firms/callback-moves.js";
import type { FirmUpdate } from "../store/firms/firms.js";
import type { ProviderTable } from "../store/schema.js";
import {
  ADMIN_API,
  auditEntry,
  checkCallbackTarget,
  checkRange,
  flag,
  type ManagementDeps,
  newApiKey,
  newSecretKey,
  PROVIDER_URL_KINDS,
} from "./checks.js";
import { type CommissionChanges, planCommissions, setCommissions } from "./firm-commissions.js";
import { firmView, providerView } from "./views.js";

export interface ProviderInput {
  name: string;
  kind: ProviderTable["kind"];
  callback_url: string | null;
  auto_cancel_minutes: number;
}

export interface FirmInput {
  name: string;
  provider_id: number | null;
  webhook_url: string | null;
  legacy_http: boolean;
  callback_middle_name: boolean;
  deposit_min: number | null;
  deposit_max: number | null;
  rate_limit_per_second: number;
  max_pending_count: number | null;
  max_pending_amount: number | null;
  max_cap_share: number | null;
  display_name: string | null;
  usual_amount_max: number | null;
  sandbox: boolean;
}

export interface FirmChanges extends CommissionChanges {
  deposits_open?: boolean;
  withdrawals_open?: boolean;
  active?: boolean;
  webhook_url?: string | null;
  legacy_http?: boolean;
  callback_middle_name?: boolean;
  deposit_min?: number | null;
  deposit_max?: number | null;
  rate_limit_per_second?: number;
  reconcile_auto?: boolean;
  reconcile_by_name?: boolean;
  answer_payment_code?: boolean;
  max_pending_count?: number | null;
  max_pending_amount?: number | null;
  max_cap_share?: number | null;
  display_name?: string | null;
  usual_amount_max?: number | null;
  /** How far below zero the firm's balance may go for its payouts, minor units; null: not at all. */
  overdraft?: number | null;
}

export async function createProvider(deps: ManagementDeps, input: ProviderInput, actor = ADMIN_API) {
  const { repos } = deps;
  if (input.callback_url !== null && input.kind === "direct")
    return refusal("provider_url_kind", PROVIDER_URL_KINDS);
  const refused = await checkCallbackTarget(deps, input.callback_url);
  if (refused) return refused;
  const now = deps.now();
  const row = await repos.audited.insert(
    "providers",
    { ...input, created_at: now, updated_at: now },
    auditEntry(deps, actor, "provider.create"),
  );
  return { ok: true as const, value: providerView(row) };
}

export async function updateProvider(
  deps: ManagementDeps,

  id: number,
  changes: Partial<Omit<ProviderInput, "kind" | "name">>,
  actor = ADMIN_API,
) {
  const { repos } = deps;
  const existing = await repos.firms.getProvider(id);
  if (!existing) return notFound("provider");
  if (changes.callback_url && existing.kind === "direct")
    return refusal("provider_url_kind", PROVIDER_URL_KINDS);
  const refused = await checkCallbackTarget(deps, changes.callback_url);
  if (refused) return refused;
  const row = await repos.audited.update(
    "providers",
    id,
    { ...changes, updated_at: deps.now() },
    auditEntry(deps, actor, "provider.update"),
  );
  deps.firmsChanged();
  return row ? { ok: true as const, value: providerView(row) } : notFound("provider");
}

export async function createFirm(deps: ManagementDeps, input: FirmInput, actor = ADMIN_API) {
  const { repos, box } = deps;
  if (input.provider_id !== null && !(await repos.firms.getProvider(input.provider_id))) {
    return notFound("provider");
  }
  const refused =
    (await checkCallbackTarget(deps, input.webhook_url)) ?? checkRange(input.deposit_min, input.deposit_max);
  if (refused) return refused;
  const secret = newSecretKey();
  const now = deps.now();
  const row = await repos.audited.insert(
    "firms",
    {
      name: input.name,
      provider_id: input.provider_id,
      api_key: newApiKey(),
      // Sealed for the firm's id, which the insert assigns: '' until then, in one transaction.
      secret_sealed: "",
      webhook_url: input.webhook_url,
      legacy_http: input.legacy_http ? 1 : 0,
      callback_middle_name: input.callback_middle_name ? 1 : 0,
      deposit_min: input.deposit_min,
      deposit_max: input.deposit_max,
      deposits_open: 1,
      withdrawals_open: 1,
      active: 1,
      rate_limit_per_second: input.rate_limit_per_second,
      max_pending_count: input.max_pending_count,
      max_pending_amount: input.max_pending_amount,
      max_cap_share: input.max_cap_share,
      display_name: input.display_name,
      usual_amount_max: input.usual_amount_max,
      sandbox: input.sandbox ? 1 : 0,
      created_at: now,
      updated_at: now,
    },
    auditEntry(deps, actor, "firm.create"),
    (id) => ({ secret_sealed: box.seal(secret, sealContext.firmSecret(id)) }),
  );
  // The only moment besides rotation that the secret leaves the store in clear.
  return { ok: true as const, value: { ...firmView(row), secret_key: secret } };
}

export async function updateFirm(deps: ManagementDeps, id: number, changes: FirmChanges, actor = ADMIN_API) {
  const { repos } = deps;
  const existing = await repos.firms.get(id);
  if (!existing) return notFound("firm");
  const refused =
    (await checkCallbackTarget(deps, changes.webhook_url)) ??
    checkRange(
      changes.deposit_min === undefined ? existing.deposit_min : changes.deposit_min,
      changes.deposit_max === undefined ? existing.deposit_max : changes.deposit_max,
    );
  if (refused) return refused;
  const plan = await planCommissions(deps, id, changes);
  if ("code" in plan) return plan;
  const commissions =
    plan.schedules.length === 0 ? undefined : await setCommissions(deps, plan, changes, actor);
  if (commissions && !commissions.ok) return commissions;
  const update: FirmUpdate = {
    deposits_open: flag(changes.deposits_open),
    withdrawals_open: flag(changes.withdrawals_open),
    active: flag(changes.active),
    legacy_http: flag(changes.legacy_http),
    callback_middle_name: flag(changes.callback_middle_name),
    webhook_url: changes.webhook_url,
    deposit_min: changes.deposit_min,
    deposit_max: changes.deposit_max,
    rate_limit_per_second: changes.rate_limit_per_second,
    reconcile_auto: flag(changes.reconcile_auto),
    reconcile_by_name: flag(changes.reconcile_by_name),
    answer_payment_code: flag(changes.answer_payment_code),
    // Lowered below what the firm has pending, the bound refuses its next deposits until enough of
    // them are decided; nothing pending is touched.
    max_pending_count: changes.max_pending_count,
    max_pending_amount: changes.max_pending_amount,
    max_cap_share: changes.max_cap_share,
    display_name: changes.display_name,
    usual_amount_max: changes.usual_amount_max,
    // Read by the payout guard inside each batching's and approval's own transaction, never cached.
    overdraft: changes.overdraft,
    updated_at: deps.now(),
  };
  const row = await repos.audited.updateChecked("firms", id, update, auditEntry(deps, actor, "firm.update"));
  // Another change to the limits landed between the check above and this write.
  if (row === "refused") return refusal("min_above_max", "the minimum must not exceed the maximum");
  deps.firmsChanged();
  if (!row) return notFound("firm");
  const view =
    commissions === undefined ? firmView(row) : { ...firmView(row), commissions: commissions.value };
  // A transaction keeps the callback URL it was made with (its callback retries for about 45 hours).
  if (
    changes.webhook_url === undefined ||
    changes.webhook_url === existing.webhook_url ||
    row.webhook_url === null
  )
    return { ok: true as const, value: view };
  if (existing.webhook_url === null) return { ok: true as const, value: view };
  const kept = await repos.callbackMoves.keptAt(id, existing.webhook_url);
  return { ok: true as const, value: { ...view, note: webhookNote(kept), kept_elsewhere: kept } };
}

/** Said with a changed webhook: what the change does not reach, and how to move it. */
function webhookNote(kept: KeptCallbacks): string {
  return `transactions made before this change keep the callback URL they were made with, and their callbacks still go there (retried for about 45 hours): ${kept.transactions} pending transaction(s), ${kept.callbacks} callback(s) not yet delivered and ${kept.sessions} open payment page(s) now; \`firm move-callbacks ID --from <the earlier webhook>\` moves them to the new one (audited), or redeliver one with \`callback redeliver\` once its receiver answers`;
}

/** Moves what still goes to an earlier webhook (pending transactions, undelivered callbacks, open pages) to the firm's webhook. */
export async function moveCallbacks(deps: ManagementDeps, id: number, from: string, actor = ADMIN_API) {
  const firm = await deps.repos.firms.get(id);
  if (!firm) return notFound("firm");
  if (firm.webhook_url === null)
    return refusal("invalid_input", "the firm has no webhook: its callbacks go to its provider's URL");
  if (from === firm.webhook_url)
    return refusal("invalid_input", "from: that is the firm's webhook now; name the earlier one");
  const moved = await deps.repos.callbackMoves.move(
    id,
    from,
    firm.webhook_url,
    callbackOrigin(firm.webhook_url),
    {
      actor,
      action: "firm.move_callbacks",
      at: deps.now(),
    },
  );
  return { ok: true as const, value: { firm: id, from, webhook_url: firm.webhook_url, moved } };
}

export async function rotateSecret(deps: ManagementDeps, id: number, actor = ADMIN_API) {
  const { repos, box } = deps;
  const secret = newSecretKey();
  const row = await repos.audited.update(
    "firms",
    id,
    { secret_sealed: box.seal(secret, sealContext.firmSecret(id)), updated_at: deps.now() },
    auditEntry(deps, actor, "firm.rotate_secret"),
  );
  deps.firmsChanged();
  return row ? { ok: true as const, value: { ...firmView(row), secret_key: secret } } : notFound("firm");
}
