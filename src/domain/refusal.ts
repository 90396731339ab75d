/**
 * Why an operator's request (admin API, console) is refused: an expected outcome, returned as a
 * value by the services; each surface turns the reason into its status (http/operator-io.ts,
 * REFUSAL_STATUS) and sends the message as it is.
 */
export type RefusalReason = "invalid" | "forbidden" | "not_found" | "conflict" | "locked";

export interface Refusal {
  ok: false;
  reason: RefusalReason;
  message: string;
}

export type Outcome<T> = { ok: true; value: T } | Refusal;

export const notFound = (what: string): Refusal => ({
  ok: false,
  reason: "not_found",
  message: `${what} not found`,
});

export const bad = (message: string): Refusal => ({ ok: false, reason: "invalid", message });
