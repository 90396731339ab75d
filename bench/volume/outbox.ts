import { callbackMessage, callbackOrigin } from "../../src/callbacks/message.js";
import { RETRY_DELAYS_MS } from "../../src/callbacks/schedule.js";
import { draws, mix } from "./people.js";
import type { SeedTransaction } from "./rows.js";

/**
 * What a decision leaves besides the transaction (store/decisions/decisions.ts writes all three in one
 * database transaction): the callback's outbox row, delivered by now or failed for good, and the
 * audit entry. Callback attempts are not seeded: only a transaction's detail reads them, by an
 * index on the callback, whatever the size of their table.
 */
export type ColumnValues = Record<string, string | number | null>;

/** A receiver that fails for good: nine attempts over about 45 hours. */
const FAILING_FOR_MS = RETRY_DELAYS_MS.reduce((a, b) => a + b, 0);

/** callbackDraft's fields, with each URL's origin parsed once rather than once per row. */
const origins = new Map<string, string>();
function draftOf(tx: SeedTransaction) {
  let origin = origins.get(tx.callback_url);
  if (origin === undefined) {
    origin = callbackOrigin(tx.callback_url);
    origins.set(tx.callback_url, origin);
  }
  const message = callbackMessage(tx, { callbackMiddleName: false });
  return {
    event: message.event,
    url: tx.callback_url,
    origin,
    payload: message.payload,
    hash_input: message.hashInput,
  };
}

export function callbackOf(tx: SeedTransaction, end: number, seed: number): ColumnValues | undefined {
  if (tx.decided_at === null) return undefined;
  const r = draws(mix(tx.id, seed ^ 0x5bd1e995));
  const decided = tx.decided_at;
  const draft = draftOf(tx);
  const failed = r() < 0.03 && decided + FAILING_FOR_MS <= end;
  const attempts = failed ? RETRY_DELAYS_MS.length + 1 : r() < 0.93 ? 1 : 2 + Math.floor(r() * 3);
  const waited = RETRY_DELAYS_MS.slice(0, attempts - 1).reduce((a, b) => a + b, 0);
  const last = Math.min(end, decided + waited + 40);
  const done = Math.min(end, last + 80 + Math.floor(r() * 400));
  return {
    id: tx.id,
    transaction_id: tx.id,
    firm_id: tx.firm_id,
    event: draft.event,
    url: draft.url,
    origin: draft.origin,
    payload: draft.payload,
    hash_input: draft.hash_input,
    status: failed ? "failed" : "delivered",
    step: attempts,
    attempts,
    next_attempt_at: last,
    lease_until: 0,
    last_attempt_at: last,
    last_result: failed ? "HTTP 503; failed" : "HTTP 200",
    delivered_at: failed ? null : done,
    failed_at: failed ? done : null,
    created_at: decided,
    updated_at: done,
  };
}

/** The decision's audit entry, as store/decisions/decisions.ts writes it. */
export function auditOf(tx: SeedTransaction): ColumnValues | undefined {
  if (tx.decided_at === null || tx.decided_by === null) return undefined;
  return {
    id: tx.id,
    actor: tx.decided_by,
    action: tx.status === "approved" ? "transaction.approve" : "transaction.reject",
    entity_type: "transaction",
    entity_id: String(tx.id),
    before_json: JSON.stringify({ status: "pending", amount: tx.original_amount ?? tx.amount }),
    after_json: JSON.stringify({ status: tx.status, amount: tx.amount, note: tx.decision_note }),
    at: tx.decided_at,
  };
}
