import type { FastifyReply } from "fastify";
import type { Refusal } from "../../domain/refusal.js";
import { sendError } from "../../http/envelope.js";
import { REFUSAL_STATUS } from "../../http/operator-io.js";
import type { BusinessRejection } from "../rejections.js";

/** Every business rejection's HTTP status and contract text; the compiler forces a row for each. */
export const REJECTIONS: { [k in BusinessRejection]: { status: number; message: string } } = {
  duplicate_reference: { status: 409, message: "Bu islem numarasi zaten kullanilmis" },
  pending_exists: { status: 409, message: "Halihazirda bekleyen talebiniz var" },
  deposits_closed: { status: 403, message: "Yatırım şu anda kapalı" },
  withdrawals_closed: { status: 403, message: "Çekim şu anda kapalı" },
  user_banned: { status: 403, message: "Kullanıcı yasaklı" },
  amount_out_of_limits: { status: 403, message: "Yatırım tutarı limit dışında" },
  no_account: { status: 422, message: "Bu tutar icin uygun hesap yok" },
  // The contract's "no account" answer, byte for byte: a firm at its bound of pending deposits is
  // told what it is told when the shared accounts are full (docs/adr/0013-firm-pending-bounds.md).
  pending_bound: { status: 422, message: "Bu tutar icin uygun hesap yok" },
  channel_declined: { status: 422, message: "Ödeme kanalı talebi kabul etmedi" },
};

/** Legacy firms get HTTP 200 for every business rejection; the body is the same. */
export function rejectionStatus(rejection: BusinessRejection, legacyHttp: boolean): number {
  return legacyHttp ? 200 : REJECTIONS[rejection].status;
}

/**
 * The merchant API's other refusals, status and text: its doors (authenticate.ts), its reading of a
 * request (admission.ts), its queries and the sandbox helpers. Bodies stay the contract's two-key
 * envelope (no code); `invalid_request`'s text is the rule that was broken, said where it is found.
 */
export const MERCHANT_REFUSALS = {
  invalid_api_key: { status: 401, message: "Invalid API key" },
  api_key_inactive: { status: 403, message: "API key is inactive" },
  missing_auth_headers: { status: 401, message: "Missing authentication headers" },
  timestamp_out_of_range: { status: 401, message: "Request timestamp out of range" },
  invalid_nonce: { status: 401, message: "Invalid nonce" },
  invalid_signature: { status: 401, message: "Invalid signature" },
  too_many_requests: { status: 429, message: "Too many requests" },
  nonce_used: { status: 401, message: "Nonce already used" },
  invalid_json: { status: 400, message: "Validation failed: request body is not valid JSON" },
  invalid_request: { status: 400, message: "Validation failed" },
  invalid_id: { status: 400, message: "invalid id" },
  transaction_not_found: { status: 404, message: "transaction not found" },
  not_found: { status: 404, message: "Not found" },
  sandbox_approve_body: {
    status: 400,
    message: 'Validation failed: body must be {} or {"amount": "150.00"}',
  },
  sandbox_reject_body: { status: 400, message: 'Validation failed: body must be {} or {"note": "..."}' },
  sandbox_note: {
    status: 400,
    message: "Validation failed: note must be at most 500 characters, no control characters",
  },
  no_callback_yet: { status: 409, message: "transaction is pending: no callback yet" },
} as const satisfies Record<string, { status: number; message: string }>;

export type MerchantRefusal = keyof typeof MERCHANT_REFUSALS;

/** A merchant refusal in the contract's envelope; `message` only where the text names the rule broken. */
export function sendMerchantRefusal(
  reply: FastifyReply,
  refused: MerchantRefusal,
  message: string = MERCHANT_REFUSALS[refused].message,
): FastifyReply {
  return sendError(reply, MERCHANT_REFUSALS[refused].status, message);
}

/**
 * A service's refusal (a sandbox helper's decision or resend) in the contract's envelope: its
 * status from the operators' table, its text as it is, and no code.
 */
export function sendRefusalInContract(reply: FastifyReply, refused: Pick<Refusal, "code" | "message">) {
  return sendError(reply, REFUSAL_STATUS[refused.code], refused.message);
}
