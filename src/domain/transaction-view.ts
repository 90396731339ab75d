import { maskNationalId } from "./masking.js";
import { formatMinor } from "./money.js";
import type { Transaction } from "./transaction.js";

/**
 * The Transaction resource as the merchant sees it. Built field by field from an allow-list, so no
 * internal column (firm, callback URL, account id, sealed national id...) can ever leak into it.
 * `amount` is a RawJson number so that it is written as 150.00, not 150.
 */
export class RawJson {
  constructor(readonly text: string) {}
}

/** What the merchant's view of a transaction is built from. */
export type TransactionRecord = Pick<
  Transaction,
  | "id"
  | "reference"
  | "type"
  | "status"
  | "amount"
  | "method"
  | "first_name"
  | "last_name"
  | "middle_name"
  | "username"
  | "user_id"
  | "national_id_masked"
  | "bank_code"
  | "iban"
  | "assigned_bank_name"
  | "assigned_holder_name"
  | "assigned_iban"
  | "created_at"
  | "updated_at"
>;

/**
 * A transaction's method as every view shows it. Withdrawals written before they carried one (and
 * by instances still on that code during a rolling upgrade) have none stored: they read as fast,
 * the API's default, computed here instead of by rewriting every old row at start.
 */
export function methodOf(stored: string | null): string {
  return stored ?? "fast";
}

export function isoTime(ms: number): string {
  return new Date(ms).toISOString();
}

export function transactionView(tx: TransactionRecord): Record<string, unknown> {
  const view: Record<string, unknown> = {
    id: tx.id,
    reference: tx.reference,
    type: tx.type,
    status: tx.status,
    amount: new RawJson(formatMinor(tx.amount)),
    method: methodOf(tx.method),
  };
  view.first_name = tx.first_name;
  view.last_name = tx.last_name;
  if (tx.middle_name !== null) view.middle_name = tx.middle_name;
  view.username = tx.username;
  view.user_id = tx.user_id;
  // `||`: rows written before the empty id was masked hold "" (decisions.md: shorter reads ***).
  view.national_id = tx.national_id_masked || maskNationalId("");
  view.bank_code = tx.bank_code;
  if (tx.type === "deposit") {
    view.assigned_bank_name = tx.assigned_bank_name ?? "";
    view.assigned_holder_name = tx.assigned_holder_name ?? "";
    view.assigned_iban = tx.assigned_iban ?? "";
  } else {
    view.iban = tx.iban ?? "";
  }
  view.created_at = isoTime(tx.created_at);
  view.updated_at = isoTime(tx.updated_at);
  return view;
}

/** JSON.stringify that writes RawJson values verbatim (no string trick: any string stays a string). */
export function toJson(value: unknown): string {
  if (value instanceof RawJson) return value.text;
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? "null" : toJson(v))).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const parts: string[] = [];
    for (const [k, v] of Object.entries(value)) {
      if (v !== undefined && typeof v !== "function") parts.push(`${JSON.stringify(k)}:${toJson(v)}`);
    }
    return `{${parts.join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}
