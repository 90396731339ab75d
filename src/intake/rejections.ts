/**
 * Expected business outcomes that refuse a deposit or withdrawal. They are values, never
 * exceptions; intake/http/rejection-responses.ts maps each one to its HTTP status and contract text.
 */
export type BusinessRejection =
  | "duplicate_reference"
  | "pending_exists"
  | "deposits_closed"
  | "withdrawals_closed"
  | "user_banned"
  | "amount_out_of_limits"
  | "no_account"
  /** The firm is at a bound of its pending deposits: answered exactly as no_account. */
  | "pending_bound"
  | "channel_declined";
