/**
 * Reading and answering for the console, the payment page's API, the admin API and the bank feed:
 * every refusal is answered as `{"success": false, "code": ..., "message": ...}`, its status taken
 * from REFUSAL_STATUS by its code. Nothing else chooses a refusal's status on these surfaces.
 */
import type { FastifyReply, FastifyRequest } from "fastify";
import type { z } from "zod";
import { type Outcome, type Refusal, type RefusalCode, refusal } from "../domain/refusal.js";
import { parseJsonBody } from "./body.js";
import { sendJson, sendPlainJson } from "./envelope.js";
import { idParam } from "./operator-fields.js";

/** The status each refusal is answered with; the compiler forces a row for every new code. */
export const REFUSAL_STATUS: { [code in RefusalCode]: number } = {
  invalid_input: 400,
  invalid_json: 400,
  invalid_id: 400,
  bad_request: 400,
  url_too_long: 414,
  invalid_content_length: 400,
  bad_search: 400,
  not_found: 404,
  body_too_large: 413,
  unsupported_media_type: 415,
  too_many_requests: 429,
  internal_error: 500,
  login_required: 401,
  csrf_failed: 403,
  role_not_allowed: 403,
  login_not_json: 415,
  wrong_login: 401,
  login_locked: 423,
  login_throttled: 429,
  sign_in_busy: 503,
  second_factor_code_needed: 401,
  wrong_second_factor_code: 401,
  second_factor_setup_required: 403,
  invalid_admin_token: 401,
  admin_token_throttled: 429,
  invalid_feed_signature: 401,
  server_stopping: 503,
  too_many_live_connections: 503,
  too_many_live_connections_here: 429,
  operator_not_found: 404,
  operator_exists: 400,
  own_role_unchangeable: 400,
  last_admin: 409,
  wrong_password: 400,
  password_locked: 423,
  wrong_password_or_code: 400,
  second_factor_not_started: 400,
  second_factor_off: 400,
  second_factor_on_already: 409,
  second_factor_required: 409,
  transaction_not_found: 404,
  callback_not_found: 404,
  invalid_amount: 400,
  above_asked_needs_admin: 403,
  already_approved: 409,
  already_rejected: 409,
  amount_on_withdrawal: 400,
  test_firm_decides_itself: 409,
  not_pending_withdrawal: 409,
  paid_out_elsewhere: 409,
  no_callback_yet: 409,
  provider_not_found: 404,
  firm_not_found: 404,
  account_not_found: 404,
  channel_not_found: 404,
  channel_exists: 400,
  http_channel_needs_url: 400,
  url_only_on_http_channel: 400,
  secret_only_on_http_channel: 400,
  channel_url_not_https: 400,
  url_not_allowed: 400,
  provider_url_kind: 400,
  min_above_max: 400,
  statement_refused: 400,
  statement_wrong_account: 400,
  statement_too_large: 413,
  statement_line_not_found: 404,
  no_deposit_on_line_account: 404,
  line_is_debit: 409,
  line_not_ours: 409,
  line_after_cancellation: 409,
  line_closed: 409,
  line_currency: 409,
  test_firm_line: 409,
  line_settles_another: 409,
  line_moved: 409,
  refund_needs_debit: 409,
  refund_not_due: 409,
  refund_amount_differs: 409,
  line_booked_before_deposit: 403,
  decided_meanwhile: 409,
  statement_imports_busy: 503,
  payout_batch_not_found: 404,
  payout_in_batch: 409,
  payout_paid_by_statement: 409,
  payout_batch_empty: 422,
  payout_account_unusable: 422,
  payout_batch_stage: 409,
  payout_second_same_operator: 403,
  payout_second_needs_operator: 403,
  payout_second_approval_pending: 409,
  payout_unknown_format: 422,
  payout_template_invalid: 422,
  payout_batch_contended: 409,
  payout_attempt_not_found: 404,
  payout_flag_live: 409,
  payout_flag_changed: 409,
  payout_over_balance: 409,
  ledger_key_reused: 409,
  ledger_opening_set: 409,
};

/** A value read with its schema, or the refusal naming the first problem (`field: rule`). */
export function parse<T extends z.ZodType>(
  schema: T,
  input: unknown,
): { ok: true; value: z.output<T> } | { ok: false; message: string } {
  const result = schema.safeParse(input);
  if (result.success) return { ok: true, value: result.data };
  return { ok: false, message: firstProblem(result.error) };
}

function firstProblem(error: z.ZodError): string {
  const issue = error.issues[0];
  const where = issue?.path.length ? `${issue.path.join(".")}: ` : "";
  return `${where}${issue?.message ?? "invalid input"}`;
}

/**
 * How a route is told what failed: by default the first problem under `invalid_input`; a route
 * whose screen names the problem itself gives its own code and text.
 */
export interface ReadRefusal {
  code: RefusalCode;
  /** The text, or how to say it from what failed (no error: the body was not JSON). */
  message?: string | ((error: z.ZodError | undefined) => string);
}

function textOf(refused: ReadRefusal, error: z.ZodError | undefined, otherwise: string): string {
  const { message } = refused;
  if (message === undefined) return otherwise;
  return typeof message === "string" ? message : message(error);
}

/**
 * A path's parameters, a query or any value read with its schema for a route: the value, or
 * undefined once the refusal is answered (then the route returns `reply`).
 */
export function read<T extends z.ZodType>(
  reply: FastifyReply,
  schema: T,
  input: unknown,
  refused: ReadRefusal = { code: "invalid_input" },
): z.output<T> | undefined {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  sendRefusal(reply, refusal(refused.code, textOf(refused, result.error, firstProblem(result.error))));
  return undefined;
}

/** A JSON body read with its schema, as read() does; a body that is not JSON is `invalid_json`. */
export function readBody<T extends z.ZodType>(
  reply: FastifyReply,
  schema: T,
  request: FastifyRequest,
  refused?: ReadRefusal,
): z.output<T> | undefined {
  const json = parseJsonBody(request);
  if (json.ok) return read(reply, schema, json.value, refused);
  const code = refused?.code ?? "invalid_json";
  sendRefusal(reply, refusal(code, refused ? textOf(refused, undefined, NOT_JSON) : NOT_JSON));
  return undefined;
}

const NOT_JSON = "request body is not valid JSON";

/** A record's id from a route's path (`:id`): the id, or undefined once `invalid_id` is answered. */
export function readId(reply: FastifyReply, params: unknown): number | undefined {
  return read(reply, idParam, params, { code: "invalid_id", message: "invalid id" })?.id;
}

/** The refusal in the envelope, with its code; `extra` adds what the refusal names (who, since when). */
export function sendRefusal(
  reply: FastifyReply,
  refused: Pick<Refusal, "code" | "message">,
  extra: Record<string, unknown> = {},
) {
  const { code, message } = refused;
  return sendPlainJson(reply, REFUSAL_STATUS[code], { success: false, code, message, ...extra });
}

/** A service's outcome: its value, or the refusal, answered with its code's status. */
export function answer<T>(reply: FastifyReply, outcome: Outcome<T>, okStatus = 200) {
  if (!outcome.ok) return sendRefusal(reply, outcome);
  return sendJson(reply, okStatus, outcome.value);
}
