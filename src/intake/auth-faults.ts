/**
 * Which check of a signed merchant request failed, told apart for the people who can act on it
 * (docs/sandbox.md, "Why a signature fails"). The contract fixes the answer's text (`Invalid
 * signature` for a wrong secret, a re-serialised body, uppercase hex or base64 alike), so the reason
 * goes to the server's log for every firm and, for a test firm only, into a header beside that text.
 * Nothing here holds a secret or a signature's value: only what the sender already knows (the parts
 * it signed, the body by its hash) and what it got wrong.
 */
import { createHash } from "node:crypto";
import type { SignedParts } from "../crypto/signature.js";

export const SIGNATURE_HINT_HEADER = "x-signature-hint";

export type SignatureShape = "uppercase_hex" | "wrong_length" | "base64" | "not_hex";

export type AuthFaultReason =
  | "api_key_unknown"
  | "api_key_inactive"
  | "missing_headers"
  | "timestamp_malformed"
  | "timestamp_outside_window"
  | "nonce_length"
  | "nonce_reused"
  | `signature_${SignatureShape}`
  | "signature_mismatch"
  | "secret_unavailable";

/** A failed check and its facts, each safe to log and to show the firm that sent the request. */
export interface AuthFault {
  reason: AuthFaultReason;
  facts: Record<string, string | number>;
}

const MIXED_CASE_HEX_64 = /^[0-9a-fA-F]{64}$/;
const HEX = /^[0-9a-fA-F]+$/;
/** 32 bytes in base64 (padded) or base64url (unpadded): what a digest's `.toString("base64")` gives. */
const BASE64_32_BYTES = /^(?:[A-Za-z0-9+/]{43}=|[A-Za-z0-9_-]{43})$/;

/**
 * What is wrong with a signature's form, or null when it is lowercase hex of 64 characters (it then
 * just does not match). Regular expressions over the sender's own header: nothing here depends on
 * the expected value, so telling the shapes apart reveals nothing of it.
 */
export function signatureShapeFault(signature: string): SignatureShape | null {
  if (MIXED_CASE_HEX_64.test(signature)) return /[A-F]/.test(signature) ? "uppercase_hex" : null;
  if (HEX.test(signature)) return "wrong_length";
  if (BASE64_32_BYTES.test(signature)) return "base64";
  return "not_hex";
}

/** A signature that did not verify: its shape's fault, else a mismatch. */
export function signatureFault(signature: string, facts: AuthFault["facts"]): AuthFault {
  const shape = signatureShapeFault(signature);
  return { reason: shape ? `signature_${shape}` : "signature_mismatch", facts };
}

/**
 * The contract's signed message as the server built it (METHOD \n PATH \n BODY \n TIMESTAMP \n
 * NONCE), the body named by its SHA-256 and length: the body itself may be large and anything, and a
 * developer hashes theirs to find a re-serialised body in one comparison.
 */
export function signedFacts(parts: SignedParts): Record<string, string | number> {
  return {
    method: parts.method.toUpperCase(),
    path: parts.path,
    body_sha256: createHash("sha256").update(parts.body).digest("hex"),
    body_bytes: parts.body.byteLength,
    timestamp: parts.timestamp,
    nonce: parts.nonce,
  };
}

/**
 * The hint header's value: `reason=…` then the facts as `key=value`, joined by `; `. A value is
 * percent-encoded (UTF-8) where it holds anything but letters, digits and `-._~/:@!$&'()*+,`, so
 * that a nonce or path with a `;`, a space or a letter outside ASCII stays one readable item and
 * the header stays valid whatever the request held.
 */
export function signatureHint(fault: AuthFault): string {
  const items = [`reason=${fault.reason}`];
  for (const [key, value] of Object.entries(fault.facts)) items.push(`${key}=${hintValue(String(value))}`);
  return items.join("; ");
}

const PLAIN = /[^A-Za-z0-9\-._~/:@!$&'()*+,]/gu;

function hintValue(value: string): string {
  return value.replace(PLAIN, (ch) => {
    // A lone surrogate has no UTF-8 form: Buffer.from gives the replacement character's bytes.
    return Array.from(
      Buffer.from(ch, "utf8"),
      (b) => `%${b.toString(16).toUpperCase().padStart(2, "0")}`,
    ).join("");
  });
}
