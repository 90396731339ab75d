import type { FastifyReply, FastifyRequest } from "fastify";
import type { Firm } from "../../domain/firm.js";
import {
  type AuthFault,
  type AuthFaultReason,
  SIGNATURE_HINT_HEADER,
  signatureHint,
} from "../auth-faults.js";
import { type MerchantRefusal, sendMerchantRefusal } from "./rejection-responses.js";

/** The contract's answer to each failed check; several checks share one text, which is the point. */
export const AUTH_REFUSALS: { [k in AuthFaultReason]: MerchantRefusal } = {
  api_key_unknown: "invalid_api_key",
  api_key_inactive: "api_key_inactive",
  missing_headers: "missing_auth_headers",
  timestamp_malformed: "timestamp_out_of_range",
  timestamp_outside_window: "timestamp_out_of_range",
  nonce_length: "invalid_nonce",
  nonce_reused: "nonce_used",
  signature_uppercase_hex: "invalid_signature",
  signature_base64: "invalid_signature",
  signature_wrong_length: "invalid_signature",
  signature_not_hex: "invalid_signature",
  signature_mismatch: "invalid_signature",
  secret_unavailable: "invalid_signature",
};

/** Facts the log leaves out: the signed parts tell the sender, not the operator, what differs. */
const SENDER_ONLY = new Set(["nonce", "body_sha256"]);

/**
 * Refuses a merchant request that failed authentication with the contract's text, unchanged. The
 * operator's log names the check for every firm; a test firm's answer also names it, with what the
 * server signed, in X-Signature-Hint (docs/sandbox.md). A live firm's answer carries nothing the
 * contract does not name. Undefined, for the callers' `return void`.
 */
export function refuseAuthentication(
  request: FastifyRequest,
  reply: FastifyReply,
  firm: Firm | undefined,
  fault: AuthFault,
): undefined {
  request.log.info(
    { firm_id: firm?.id, check: fault.reason, ...loggedFacts(fault) },
    "merchant request refused: authentication",
  );
  if (firm?.sandbox && fault.reason !== "api_key_inactive") {
    reply.header(SIGNATURE_HINT_HEADER, signatureHint(fault));
  }
  sendMerchantRefusal(reply, AUTH_REFUSALS[fault.reason]);
  return undefined;
}

function loggedFacts(fault: AuthFault): Record<string, string | number> {
  const out: Record<string, string | number> = {};
  for (const [key, value] of Object.entries(fault.facts)) if (!SENDER_ONLY.has(key)) out[key] = value;
  return out;
}
