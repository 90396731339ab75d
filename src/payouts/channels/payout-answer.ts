/**
 * What a payout channel's answer means (docs/channels.md, "Payouts by API"), read without any I/O.
 * The rule: only a well-formed answer about this payment id and this amount is believed. Anything
 * else leaves the outcome unknown (the money may or may not have left), and an answer that names
 * another payment or another amount is a mismatch, flagged and never approved.
 */
import { formatMinor, parseAmount } from "../../domain/money.js";
import { cleanReason } from "../../routing/channels/http-channel.js";

/** One payout to send: amounts in minor units (kuruş), formatted only on the wire. */
export interface PayoutOrder {
  /** The attempt's payment id (at most 35 letters and digits): the partner's idempotency key. */
  paymentId: string;
  amountMinor: number;
  iban: string;
  /** The payee's name, as the contract names the payee. */
  name: string;
  description: string;
  method: "FAST" | "EFT";
}

/** Why an outcome is unknown, as a stable code; `why` says it in words for operators and logs. */
export type PayoutUnknownCause =
  /** Nothing left this process (no URL or secret, an address not allowed, a connection refused). */
  | "not_sent"
  /** No answer within the channel's timeout. */
  | "timeout"
  /** The connection failed after it may have carried the request. */
  | "network"
  /** An HTTP status other than 200. */
  | "http_status"
  /** Not JSON, too large, or a status the protocol does not have (for this question). */
  | "malformed"
  /** A status query the partner answered `unknown`: it holds no payout with this payment id. */
  | "not_found";

/**
 * The outcome of a send or a status query. `accepted`: the partner will pay, the final word comes
 * later (ask its status). `paid`: final, the money left. `refused`: final, nothing was paid.
 * `returned`: paid, then sent back by the payee's bank (reason: AC01, AC04, …). `unknown`: the money
 * may or may not have left; never send a payout under a new payment id for it, ask its status (a
 * repeat of the same order is safe: the partner answers a repeated payment id the same). `mismatch`:
 * everything `unknown` says, and the partner named another payment or amount: flag it to operators.
 */
export type PayoutAnswer =
  | { outcome: "accepted" }
  | { outcome: "paid" }
  | { outcome: "refused"; reason: string }
  | { outcome: "returned"; reason: string }
  | { outcome: "unknown"; cause: PayoutUnknownCause; why: string }
  | { outcome: "mismatch"; field: "payment_id" | "amount"; why: string };

/** The statuses a payout's answer may carry; a status query may also say `returned` or `unknown`. */
const SEND_STATUSES = new Set(["accepted", "paid", "refused", "returned"]);
const STATUS_STATUSES = new Set([...SEND_STATUSES, "unknown"]);

const malformed = (why: string): PayoutAnswer => ({ outcome: "unknown", cause: "malformed", why });

/**
 * Reads a 200 answer's text. `question` says which request it answers: a repeated payout may be
 * answered with the payout's state now (paid after accepted, returned), never `unknown`, which only
 * a status query may say.
 */
export function readPayoutAnswer(
  text: string,
  order: PayoutOrder,
  question: "payout" | "status",
): PayoutAnswer {
  let answer: unknown;
  try {
    answer = JSON.parse(text);
  } catch {
    return malformed("malformed answer: not JSON");
  }
  if (typeof answer !== "object" || answer === null || Array.isArray(answer))
    return malformed("malformed answer: not a JSON object");
  const fields = answer as Record<string, unknown>;
  const mismatch = echoMismatch(fields, order);
  if (mismatch) return mismatch;
  const status = fields.status;
  const known = question === "payout" ? SEND_STATUSES : STATUS_STATUSES;
  if (typeof status !== "string" || !known.has(status))
    return malformed(`malformed answer: status ${JSON.stringify(status ?? null).slice(0, 40)}`);
  switch (status) {
    case "accepted":
      return { outcome: "accepted" };
    case "paid":
      return { outcome: "paid" };
    case "refused":
      return { outcome: "refused", reason: cleanReason(fields.reason, "refused") };
    case "returned":
      return { outcome: "returned", reason: cleanReason(fields.reason, "returned") };
    default:
      return {
        outcome: "unknown",
        cause: "not_found",
        why: "the channel holds no payout with this payment id",
      };
  }
}

/**
 * An echoed payment id or amount that is not ours. Absent (or null) echoes are fine: the protocol
 * does not require them. An amount is compared in minor units ("1234.5" is 123450), and one that
 * is not an amount at all names something else too.
 */
function echoMismatch(fields: Record<string, unknown>, order: PayoutOrder): PayoutAnswer | undefined {
  const id = fields.payment_id;
  if (id !== undefined && id !== null && id !== order.paymentId)
    return {
      outcome: "mismatch",
      field: "payment_id",
      why: `answer names payment ${cleanReason(String(id), "?").slice(0, 40)}, not ${order.paymentId}`,
    };
  const amount = fields.amount;
  if (amount === undefined || amount === null) return undefined;
  const parsed = typeof amount === "string" ? parseAmount(amount) : undefined;
  if (parsed?.ok && parsed.minor === order.amountMinor) return undefined;
  return {
    outcome: "mismatch",
    field: "amount",
    why: `answer names amount ${cleanReason(String(amount), "?").slice(0, 40)}, not ${formatMinor(order.amountMinor)}`,
  };
}
