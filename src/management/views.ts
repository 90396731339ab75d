/**
 * Providers, firms, channels and accounts as operators see them. Secrets never appear here; a firm's
 * secret is shown only on create/rotate.
 */
import { isPlainHttpLiveWebhook, PLAIN_HTTP_WEBHOOK_WARNING } from "../domain/firm.js";
import { formatMinor } from "../domain/money.js";
import { isoTime } from "../domain/transaction-view.js";
import type { FirmRow, ProviderRow } from "../store/firms/firms.js";
import type { AccountRow } from "../store/routing/accounts.js";
import type { ChannelRow } from "../store/routing/channels.js";

const money = (minor: number | null) => (minor === null ? null : formatMinor(minor));
const openOrClosed = (flag: number): "open" | "closed" => (flag === 1 ? "open" : "closed");

export function providerView(p: ProviderRow) {
  return {
    id: p.id,
    name: p.name,
    kind: p.kind,
    callback_url: p.callback_url,
    auto_cancel_minutes: p.auto_cancel_minutes,
    created_at: isoTime(p.created_at),
    updated_at: isoTime(p.updated_at),
  };
}

export function firmView(f: FirmRow) {
  return {
    id: f.id,
    name: f.name,
    provider_id: f.provider_id,
    api_key: f.api_key,
    webhook_url: f.webhook_url,
    legacy_http: f.legacy_http === 1,
    callback_middle_name: f.callback_middle_name === 1,
    deposit_min: money(f.deposit_min),
    deposit_max: money(f.deposit_max),
    deposits: openOrClosed(f.deposits_open),
    withdrawals: openOrClosed(f.withdrawals_open),
    active: f.active === 1,
    sandbox: f.sandbox === 1,
    rate_limit_per_second: f.rate_limit_per_second,
    max_pending_count: f.max_pending_count === null ? null : Number(f.max_pending_count),
    max_pending_amount: money(f.max_pending_amount === null ? null : Number(f.max_pending_amount)),
    max_cap_share: f.max_cap_share,
    reconcile_auto: f.reconcile_auto === 1,
    reconcile_by_name: f.reconcile_by_name === 1,
    answer_payment_code: f.answer_payment_code === 1,
    display_name: f.display_name,
    usual_amount_max: money(f.usual_amount_max === null ? null : Number(f.usual_amount_max)),
    overdraft: money(f.overdraft === null ? null : Number(f.overdraft)),
    created_at: isoTime(f.created_at),
    updated_at: isoTime(f.updated_at),
    // Allowed settings an operator should hear of: the CLI writes them to stderr.
    warnings: isPlainHttpLiveWebhook(f.sandbox === 1, f.webhook_url) ? [PLAIN_HTTP_WEBHOOK_WARNING] : [],
  };
}

export function channelView(c: ChannelRow) {
  return {
    id: c.id,
    code: c.code,
    kind: c.kind,
    url: c.url,
    timeout_ms: c.timeout_ms,
    active: c.active === 1,
    created_at: isoTime(c.created_at),
    updated_at: isoTime(c.updated_at),
  };
}

export function accountView(a: AccountRow) {
  return {
    id: a.id,
    bank_name: a.bank_name,
    holder_name: a.holder_name,
    iban: a.iban,
    min: money(a.min_amount),
    max: money(a.max_amount),
    active: a.active === 1,
    channel_id: a.channel_id,
    bank_code: a.bank_code,
    daily_cap: money(a.daily_cap),
    sandbox: a.sandbox === 1,
    created_at: isoTime(a.created_at),
    updated_at: isoTime(a.updated_at),
  };
}

export type ProviderView = ReturnType<typeof providerView>;
export type FirmView = ReturnType<typeof firmView>;
export type ChannelView = ReturnType<typeof channelView>;
export type AccountView = ReturnType<typeof accountView>;
