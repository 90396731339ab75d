/**
 * The callback that tells the merchant of a decision: its body as decisions.md lists it, the body as
 * sent with its `hashcode`, the receiver's origin and the outbox row a decision writes.
 */

import { callbackOrigin } from "../domain/callback-origin.js";
import { formatMinor } from "../domain/money.js";
import { isoTime, methodOf, RawJson, type TransactionRecord, toJson } from "../domain/transaction-view.js";
import type { CallbackDraft } from "../store/callbacks/callbacks.js";

/** What a callback is built from: the transaction as decided. */
export type DecidedTransaction = Omit<
  TransactionRecord,
  | "national_id_masked"
  | "bank_code"
  | "iban"
  | "assigned_bank_name"
  | "assigned_holder_name"
  | "assigned_iban"
>;

export interface CallbackMessage {
  event: string;
  /** The JSON body without `hashcode`; `hashcode` is added, with the firm's current secret, at send time. */
  payload: string;
  /** What `hashcode` signs: reference|type|status|amount, amount with 2 decimals. */
  hashInput: string;
}

/**
 * The callback body as decisions.md lists it: `method` on every transaction, as in the Transaction
 * view; `middle_name` only when the firm enabled it and a valid one was sent.
 */
export function callbackMessage(
  tx: DecidedTransaction,
  firm: { callbackMiddleName: boolean },
): CallbackMessage {
  const event = `${tx.type}.${tx.status}`;
  const amount = formatMinor(tx.amount);
  const body: Record<string, unknown> = {
    event,
    id: tx.id,
    reference: tx.reference,
    type: tx.type,
    status: tx.status,
    amount: new RawJson(amount),
    method: methodOf(tx.method),
  };
  body.full_name = `${tx.first_name} ${tx.last_name}`;
  body.username = tx.username;
  body.user_id = tx.user_id;
  body.created_at = isoTime(tx.created_at);
  body.updated_at = isoTime(tx.updated_at);
  if (firm.callbackMiddleName && tx.middle_name !== null) body.middle_name = tx.middle_name;
  return { event, payload: toJson(body), hashInput: `${tx.reference}|${tx.type}|${tx.status}|${amount}` };
}

/** The body as sent: the stored payload with `hashcode` as its last field. */
export function callbackBody(payload: string, hashcode: string): string {
  return `${payload.slice(0, -1)},"hashcode":${JSON.stringify(hashcode)}}`;
}

export { callbackOrigin };

/** The outbox row of a decided transaction, to the URL resolved when it was created. */
export function callbackDraft(
  tx: DecidedTransaction & { callback_url: string },
  firm: { callbackMiddleName: boolean },
): CallbackDraft {
  const message = callbackMessage(tx, firm);
  return {
    event: message.event,
    url: tx.callback_url,
    origin: callbackOrigin(tx.callback_url),
    payload: message.payload,
    hash_input: message.hashInput,
  };
}
