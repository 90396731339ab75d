/** Callbacks, their attempts and their receivers as operators see them (admin API, console). */
import type { ReceiverReport } from "../domain/receiver-report.js";
import { isoTime } from "../domain/transaction-view.js";
import type { CallbackAttemptRow, CallbackRow } from "../store/callbacks/callbacks.js";

const time = (ms: number | null) => (ms === null ? null : isoTime(ms));

export function callbackView(c: CallbackRow) {
  return {
    id: c.id,
    transaction_id: c.transaction_id,
    firm_id: c.firm_id,
    event: c.event,
    url: c.url,
    status: c.status,
    attempt_count: c.attempts,
    next_attempt_at: c.status === "pending" ? isoTime(c.next_attempt_at) : null,
    last_attempt_at: time(c.last_attempt_at),
    last_result: c.last_result,
    delivered_at: time(c.delivered_at),
    failed_at: time(c.failed_at),
    created_at: isoTime(c.created_at),
  };
}

export function receiverView(r: ReceiverReport) {
  return { origin: r.origin, slow: r.slow, in_flight: r.inFlight, hanging: r.hanging, usual_ms: r.usualMs };
}

export function callbackAttemptView(a: CallbackAttemptRow) {
  return {
    attempt: a.attempt,
    started_at: isoTime(a.started_at),
    duration_ms: a.duration_ms,
    http_status: a.http_status,
    error: a.error,
    response_excerpt: a.response_excerpt,
    outcome: a.outcome,
  };
}

export type CallbackView = ReturnType<typeof callbackView>;
export type ReceiverView = ReturnType<typeof receiverView>;
export type CallbackAttemptView = ReturnType<typeof callbackAttemptView>;
