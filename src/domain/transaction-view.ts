/**
 * The Transaction resource as the merchant sees it. Built field by field from an allow-list, so no
 * internal column (firm, callback URL, account id, sealed national id...) can ever leak into it.
 */
import { maskNationalId } from "./masking.js";
import { formatMinor } from "./money.js";
import type { Transaction } from "./transaction.js";

/** A number written as its text: `amount` is a RawJson number so that it is written as 150.00, not 150. */
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

/**
 * JSON.stringify that writes RawJson values verbatim (no string trick: any string stays a string).
 * Whatever holds no RawJson is written by JSON.stringify itself, and so is each run of an object's
 * fields between its raw ones: lists of hundreds of rows go through here on every console refresh,
 * and building the text a field at a time made it the costliest step of a page.
 */
export function toJson(value: unknown): string {
  if (!holdsRaw(value)) return JSON.stringify(value) ?? "null";
  if (value instanceof RawJson) return value.text;
  if (Array.isArray(value)) return arrayJson(value);
  return objectJson(value as Record<string, unknown>);
}

/** Whether a RawJson is anywhere inside (a Date or other toJSON value is JSON.stringify's). */
function holdsRaw(value: unknown): boolean {
  if (value === null || typeof value !== "object") return false;
  if (value instanceof RawJson) return true;
  if (Array.isArray(value)) return value.some(holdsRaw);
  if (typeof (value as { toJSON?: unknown }).toJSON === "function") return false;
  for (const key in value) {
    if (Object.hasOwn(value, key) && holdsRaw((value as Record<string, unknown>)[key])) return true;
  }
  return false;
}

function arrayJson(items: readonly unknown[]): string {
  let out = "[";
  for (let i = 0; i < items.length; i++) {
    const item = items[i];
    if (i > 0) out += ",";
    out +=
      item === undefined || typeof item === "function" || typeof item === "symbol" ? "null" : toJson(item);
  }
  return `${out}]`;
}

/**
 * The fields between raw ones are gathered into one plain object and written by JSON.stringify,
 * its braces cut off. A field named `__proto__` is written on its own: assigned to a plain object
 * it would set the prototype instead.
 */
function objectJson(fields: Record<string, unknown>): string {
  let out = "";
  let run: Record<string, unknown> | undefined;
  const flush = () => {
    if (run === undefined) return;
    const text = JSON.stringify(run);
    run = undefined;
    if (text.length > 2) out += `${out === "" ? "" : ","}${text.slice(1, -1)}`;
  };
  for (const key in fields) {
    if (!Object.hasOwn(fields, key)) continue;
    const field = fields[key];
    if (key !== "__proto__" && !holdsRaw(field)) {
      run ??= {};
      run[key] = field;
      continue;
    }
    flush();
    if (field === undefined || typeof field === "function" || typeof field === "symbol") continue;
    out += `${out === "" ? "" : ","}${quotedKey(key)}:${toJson(field)}`;
  }
  flush();
  return `{${out}}`;
}

/** Field names repeat on every row of a list; their JSON text is kept, up to a bound. */
const quotedKeys = new Map<string, string>();
const MAX_QUOTED_KEYS = 1_000;

function quotedKey(key: string): string {
  let quoted = quotedKeys.get(key);
  if (quoted === undefined) {
    quoted = JSON.stringify(key);
    if (quotedKeys.size < MAX_QUOTED_KEYS) quotedKeys.set(key, quoted);
  }
  return quoted;
}
