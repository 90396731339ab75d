import { isPlainHttpLiveWebhook, PLAIN_HTTP_WEBHOOK_WARNING } from "../domain/firm.js";
import { formatMinor } from "../domain/money.js";
import { isoTime, methodOf } from "../domain/transaction-view.js";
import type { FirmRow, ProviderRow } from "../store/firms/firms.js";
import type { AccountRow } from "../store/routing/accounts.js";
import type { ChannelRow } from "../store/routing/channels.js";
import type { TransactionRow } from "../store/transactions/transactions.js";

/** What operators see. Secrets never appear here; a firm's secret is shown only on create/rotate. */
const money = (minor: number | null) => (minor === null ? null : formatMinor(minor));
const time = (ms: number | null) => (ms === null ? null : isoTime(ms));

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
    deposits: f.deposits_open === 1 ? "open" : "closed",
    withdrawals: f.withdrawals_open === 1 ? "open" : "closed",
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

/** Operators see internal fields the merchant never does, but still only the masked national id. */
export function operatorTransactionView(t: TransactionRow) {
  return {
    id: t.id,
    firm_id: t.firm_id,
    reference: t.reference,
    type: t.type,
    status: t.status,
    amount: formatMinor(t.amount),
    method: methodOf(t.method),
    first_name: t.first_name,
    middle_name: t.middle_name,
    last_name: t.last_name,
    username: t.username,
    user_id: t.user_id,
    national_id: t.national_id_masked,
    bank_code: t.bank_code,
    iban: t.iban,
    iban_valid: t.iban_valid === null ? null : t.iban_valid === 1,
    account_id: t.account_id,
    assigned_bank_name: t.assigned_bank_name,
    assigned_holder_name: t.assigned_holder_name,
    assigned_iban: t.assigned_iban,
    callback_url: t.callback_url,
    created_at: isoTime(t.created_at),
    updated_at: isoTime(t.updated_at),
    decided_at: time(t.decided_at),
    decided_by: t.decided_by,
    decision_note: t.decision_note,
    original_amount: money(t.original_amount),
    routing: t.routing_log === null ? [] : (JSON.parse(t.routing_log) as unknown[]),
    // Fields the merchant sent that the API does not read: a misspelt one shows here.
    ignored_fields: t.ignored_fields === null ? null : (JSON.parse(t.ignored_fields) as string[]),
  };
}

/**
 * A transaction as an export writes it: the export's columns only, without the routing log and
 * the ignored fields the console's view parses. An export of a day reads tens of thousands.
 */
export function exportTransactionView(t: TransactionRow, firmName: string) {
  return {
    id: t.id,
    created_at: isoTime(t.created_at),
    type: t.type,
    status: t.status,
    firm_id: t.firm_id,
    reference: t.reference,
    amount: formatMinor(t.amount),
    original_amount: money(t.original_amount),
    method: methodOf(t.method),
    user_id: t.user_id,
    username: t.username,
    first_name: t.first_name,
    last_name: t.last_name,
    assigned_bank_name: t.assigned_bank_name,
    assigned_iban: t.assigned_iban,
    iban: t.iban,
    decided_at: time(t.decided_at),
    decided_by: t.decided_by,
    firm_name: firmName,
    middle_name: t.middle_name,
    iban_valid: t.iban_valid === null ? null : t.iban_valid === 1,
    decision_note: t.decision_note,
  };
}

export type ExportRow = ReturnType<typeof exportTransactionView>;
