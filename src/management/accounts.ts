/** Managing the payment accounts deposits are routed to and the channels that hold them. */
import { sealContext } from "../crypto/seal-context.js";
import { notFound, refusal } from "../domain/refusal.js";
import type { AccountUpdate } from "../store/routing/accounts.js";
import {
  ADMIN_API,
  auditEntry,
  channelId,
  checkChannelUrl,
  checkRange,
  flag,
  type ManagementDeps,
  newSecretKey,
} from "./checks.js";
import { accountView, channelView } from "./views.js";

export interface AccountInput {
  bank_name: string;
  holder_name: string;
  iban: string;
  min_amount: number | null;
  max_amount: number | null;
  /** The channel's code; none = the account itself (manual). */
  channel?: string | null;
  bank_code?: string | null;
  daily_cap?: number | null;
}

export interface AccountChanges {
  active?: boolean;
  min_amount?: number | null;
  max_amount?: number | null;
  channel?: string | null;
  bank_code?: string | null;
  daily_cap?: number | null;
}

export interface ChannelInput {
  code: string;
  kind: "manual" | "http";
  url: string | null;
  timeout_ms: number;
}

export async function addAccount(deps: ManagementDeps, input: AccountInput, actor = ADMIN_API) {
  const { repos } = deps;
  const refused = checkRange(input.min_amount, input.max_amount);
  if (refused) return refused;
  const channel = await channelId(deps, input.channel);
  if (channel === undefined) return notFound("channel");
  const now = deps.now();
  const { channel: _code, bank_code, ...rest } = input;
  const row = await repos.audited.insert(
    "payment_accounts",
    {
      ...rest,
      channel_id: channel,
      bank_code: bank_code?.toUpperCase() ?? null,
      daily_cap: rest.daily_cap ?? null,
      active: 1,
      created_at: now,
      updated_at: now,
    },
    auditEntry(deps, actor, "account.create"),
  );
  deps.accountsChanged();
  return { ok: true as const, value: accountView(row) };
}

export async function updateAccount(
  deps: ManagementDeps,
  id: number,
  changes: AccountChanges,
  actor = ADMIN_API,
) {
  const { repos } = deps;
  const existing = await repos.accounts.get(id);
  if (!existing) return notFound("account");
  const channel =
    changes.channel === undefined ? existing.channel_id : await channelId(deps, changes.channel);
  if (channel === undefined) return notFound("channel");
  const refused = checkRange(
    changes.min_amount === undefined ? existing.min_amount : changes.min_amount,
    changes.max_amount === undefined ? existing.max_amount : changes.max_amount,
  );
  if (refused) return refused;
  const update: AccountUpdate = {
    active: flag(changes.active),
    min_amount: changes.min_amount,
    max_amount: changes.max_amount,
    channel_id: channel,
    daily_cap: changes.daily_cap,
    bank_code: changes.bank_code === undefined ? undefined : (changes.bank_code?.toUpperCase() ?? null),
    updated_at: deps.now(),
  };
  const row = await repos.audited.updateChecked(
    "payment_accounts",
    id,
    update,
    auditEntry(deps, actor, "account.update"),
  );
  if (row === "refused") return refusal("min_above_max", "the minimum must not exceed the maximum");
  deps.accountsChanged();
  return row ? { ok: true as const, value: accountView(row) } : notFound("account");
}

/** An http channel gets a secret to verify our asks with, shown here only (and never logged). */
export async function createChannel(deps: ManagementDeps, input: ChannelInput, actor = ADMIN_API) {
  const { repos, box } = deps;
  if (input.kind === "http" && input.url === null)
    return refusal("http_channel_needs_url", "an http channel needs --url");
  const refused = input.kind === "http" ? await checkChannelUrl(deps, input.url) : null;
  if (refused) return refused;
  if (await repos.channels.byCode(input.code))
    return refusal("channel_exists", `channel ${input.code} exists already`);
  const now = deps.now();
  const secret = input.kind === "http" ? newSecretKey() : null;
  const row = await repos.audited.insertUnique(
    "channels",
    {
      ...input,
      url: input.kind === "http" ? input.url : null,
      // Sealed for the channel's id, which the insert assigns: '' until then, in one transaction.
      secret_sealed: secret === null ? null : "",
      active: 1,
      created_at: now,
      updated_at: now,
    },
    auditEntry(deps, actor, "channel.create"),
    secret === null
      ? undefined
      : (id) => ({ secret_sealed: box.seal(secret, sealContext.channelSecret(id)) }),
  );
  if (!row) return refusal("channel_exists", `channel ${input.code} exists already`);
  deps.accountsChanged();
  return { ok: true as const, value: { ...channelView(row), ...(secret ? { secret } : {}) } };
}

export async function updateChannel(
  deps: ManagementDeps,

  code: string,
  changes: { url?: string; timeout_ms?: number; active?: boolean },
  actor = ADMIN_API,
) {
  const { repos } = deps;
  const existing = await repos.channels.byCode(code);
  if (!existing) return notFound("channel");
  if (changes.url !== undefined && existing.kind !== "http")
    return refusal("url_only_on_http_channel", "only an http channel has a URL");
  const refused = await checkChannelUrl(deps, changes.url);
  if (refused) return refused;
  const row = await repos.audited.update(
    "channels",
    existing.id,
    {
      url: changes.url,
      timeout_ms: changes.timeout_ms,
      active: flag(changes.active),
      updated_at: deps.now(),
    },
    auditEntry(deps, actor, "channel.update"),
  );
  deps.accountsChanged();
  return row ? { ok: true as const, value: channelView(row) } : notFound("channel");
}

/** A new secret for an http channel, shown here only; the old one stops signing asks at once. */
export async function rotateChannelSecret(deps: ManagementDeps, code: string, actor = ADMIN_API) {
  const { repos, box } = deps;
  const existing = await repos.channels.byCode(code);
  if (!existing) return notFound("channel");
  if (existing.kind !== "http")
    return refusal("secret_only_on_http_channel", "only an http channel has a secret");
  const secret = newSecretKey();
  const row = await repos.audited.update(
    "channels",
    existing.id,
    { secret_sealed: box.seal(secret, sealContext.channelSecret(existing.id)), updated_at: deps.now() },
    auditEntry(deps, actor, "channel.rotate_secret"),
  );
  // The account pool carries the channels' secrets: reloaded here and on every instance.
  deps.accountsChanged();
  return row ? { ok: true as const, value: { ...channelView(row), secret } } : notFound("channel");
}
