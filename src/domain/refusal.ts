/**
 * Why a request to the console, the payment page, the admin API or the bank feed is refused: an
 * expected outcome, returned as a value by the services and answered by the routes. Each refusal
 * carries a stable machine code beside its English text; screens translate and clients branch on
 * the code, never on the text. One table turns a code into its HTTP status (REFUSAL_STATUS,
 * http/operator-io.ts); docs/api.md lists the codes (docs/adr/0016-refusal-codes.md). The merchant
 * API's contract bodies carry no code: its refusals are intake/http/rejection-responses.ts's.
 */
export const REFUSAL_CODES = [
  // Reading a request: its body, query or path, and the HTTP layer's own refusals.
  "invalid_input",
  "invalid_json",
  "invalid_id",
  "bad_request",
  "url_too_long",
  "invalid_content_length",
  "bad_search",
  "not_found",
  "body_too_large",
  "unsupported_media_type",
  "too_many_requests",
  "internal_error",
  // Doors: the console's session, sign-in, the admin token, the bank feed's signature.
  "login_required",
  "csrf_failed",
  "role_not_allowed",
  "login_not_json",
  "wrong_login",
  "login_locked",
  "login_throttled",
  "sign_in_busy",
  "second_factor_code_needed",
  "wrong_second_factor_code",
  "second_factor_setup_required",
  "invalid_admin_token",
  "admin_token_throttled",
  "invalid_feed_signature",
  "server_stopping",
  "too_many_live_connections",
  "too_many_live_connections_here",
  // Operators, passwords and the second factor.
  "operator_not_found",
  "operator_exists",
  "own_role_unchangeable",
  "last_admin",
  "wrong_password",
  "password_locked",
  "wrong_password_or_code",
  "second_factor_not_started",
  "second_factor_off",
  "second_factor_on_already",
  "second_factor_required",
  // What transactions and callbacks are decided and sent with.
  "transaction_not_found",
  "callback_not_found",
  "invalid_amount",
  "above_asked_needs_admin",
  "already_approved",
  "already_rejected",
  "amount_on_withdrawal",
  "test_firm_decides_itself",
  "not_pending_withdrawal",
  "paid_out_elsewhere",
  "no_callback_yet",
  // Management: providers, firms, accounts, channels.
  "provider_not_found",
  "firm_not_found",
  "account_not_found",
  "channel_not_found",
  "channel_exists",
  "http_channel_needs_url",
  "url_only_on_http_channel",
  "secret_only_on_http_channel",
  "channel_url_not_https",
  "url_not_allowed",
  "provider_url_kind",
  "min_above_max",
  // Bank statements and their lines.
  "statement_refused",
  "statement_wrong_account",
  "statement_too_large",
  "statement_line_not_found",
  "no_deposit_on_line_account",
  "line_is_debit",
  "line_not_ours",
  "line_after_cancellation",
  "line_closed",
  "line_currency",
  "test_firm_line",
  "line_settles_another",
  "line_moved",
  "refund_needs_debit",
  "refund_not_due",
  "refund_amount_differs",
  "line_booked_before_deposit",
  "decided_meanwhile",
  "statement_imports_busy",
  // Payouts: batches, their files and the two-person rule.
  "payout_batch_not_found",
  "payout_in_batch",
  "payout_paid_by_statement",
  "payout_batch_empty",
  "payout_account_unusable",
  "payout_batch_stage",
  "payout_second_same_operator",
  "payout_second_needs_operator",
  "payout_second_approval_pending",
  "payout_unknown_format",
  "payout_template_invalid",
  "payout_batch_contended",
  "payout_attempt_not_found",
  "payout_flag_live",
  "payout_flag_changed",
  "payout_over_balance",
  "ledger_key_reused",
  "ledger_opening_set",
] as const;

export type RefusalCode = (typeof REFUSAL_CODES)[number];

export interface Refusal {
  ok: false;
  code: RefusalCode;
  message: string;
}

export type Outcome<T> = { ok: true; value: T } | Refusal;

export const refusal = (code: RefusalCode, message: string): Refusal => ({ ok: false, code, message });

/** What a request may name that is not there: each has its code, `<thing>_not_found`. */
export type Missing =
  | "transaction"
  | "callback"
  | "provider"
  | "firm"
  | "account"
  | "channel"
  | "operator"
  | "payout_batch"
  | "payout_attempt";

export const notFound = (what: Missing): Refusal => refusal(`${what}_not_found`, `${what} not found`);
