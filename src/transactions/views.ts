/** Transactions as operators see them (console, admin API, exports). */
import { formatMinor } from "../domain/money.js";
import type { RoutingStep } from "../domain/routing-step.js";
import { isoTime, methodOf } from "../domain/transaction-view.js";
import type { TransactionRow } from "../store/transactions/transactions.js";

const money = (minor: number | null) => (minor === null ? null : formatMinor(minor));
const time = (ms: number | null) => (ms === null ? null : isoTime(ms));

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
    routing: t.routing_log === null ? [] : (JSON.parse(t.routing_log) as RoutingStep[]),
    // Fields the merchant sent that the API does not read: a misspelt one shows here.
    ignored_fields: t.ignored_fields === null ? null : (JSON.parse(t.ignored_fields) as string[]),
  };
}

/** A transaction as the console and the admin API answer it. */
export type TransactionView = ReturnType<typeof operatorTransactionView>;

/** A pending payout's mark (ADR 0010): the operator paying it out now, and since when; null: nobody. */
export interface PayoutMarkView {
  paying_by: string | null;
  paying_since: string | null;
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
