/**
 * Request signing as the contract defines it: lowercase hex HMAC-SHA256, keyed with the secret key's
 * UTF-8 bytes, over METHOD \n PATH \n BODY \n TIMESTAMP \n NONCE. The body is the raw bytes as sent;
 * it is never decoded and re-encoded before hashing. `signRequest` is the exact inverse of
 * `verifyRequestSignature`, so tests and clients produce what the server checks.
 */
import { createHmac, createSecretKey, timingSafeEqual } from "node:crypto";
import { memoized } from "./memoized.js";

export interface SignedParts {
  method: string;
  /** Full versioned path, without the query string. */
  path: string;
  body: Uint8Array;
  timestamp: string;
  nonce: string;
}

/**
 * Each secret's key, imported once: turning the secret into key material is a large part of an
 * HMAC's cost, too much to pay on every request. Bounded; a rotated secret's key just ages out with
 * the rest.
 */
const keyOf = memoized((secret) => createSecretKey(Buffer.from(secret, "utf8")), 1_000);

function digest(secret: string, parts: SignedParts): Buffer {
  const hmac = createHmac("sha256", keyOf(secret));
  hmac.update(`${parts.method.toUpperCase()}\n${parts.path}\n`, "utf8");
  hmac.update(parts.body);
  hmac.update(`\n${parts.timestamp}\n${parts.nonce}`, "utf8");
  return hmac.digest();
}

export function signRequest(secret: string, parts: SignedParts): string {
  return digest(secret, parts).toString("hex");
}

const LOWER_HEX_SHA256 = /^[0-9a-f]{64}$/;

/** Constant-time; never throws, whatever the header holds (odd length, non-hex, multibyte). */
export function verifyRequestSignature(secret: string, parts: SignedParts, signature: string): boolean {
  if (!LOWER_HEX_SHA256.test(signature)) return false;
  const expected = digest(secret, parts);
  return timingSafeEqual(expected, Buffer.from(signature, "hex"));
}

/** Callback hashcode: HMAC-SHA256 over reference|type|status|amount (amount with 2 decimals). */
export function callbackHashcode(
  secret: string,
  fields: { reference: string; type: string; status: string; amount: string },
): string {
  return createHmac("sha256", keyOf(secret))
    .update(`${fields.reference}|${fields.type}|${fields.status}|${fields.amount}`, "utf8")
    .digest("hex");
}

/** Callback hashcode over its prepared input (reference|type|status|amount). */
export function hashcodeOf(secret: string, hashInput: string): string {
  return createHmac("sha256", keyOf(secret)).update(hashInput, "utf8").digest("hex");
}

/**
 * The callback's header signature: lowercase hex HMAC-SHA256, keyed with the firm's secret, over
 * TIMESTAMP \n BODY (the raw body bytes as sent), so a receiver can check every byte and refuse old
 * replays by the timestamp. docs/callbacks.md shows how to verify it.
 */
export function signCallback(secret: string, timestamp: string, body: string | Uint8Array): string {
  const hmac = createHmac("sha256", keyOf(secret));
  hmac.update(`${timestamp}\n`, "utf8");
  hmac.update(body);
  return hmac.digest("hex");
}

/**
 * A statement feed's request signature (docs/reconciliation.md): lowercase hex HMAC-SHA256, keyed
 * with the account's feed secret, over TIMESTAMP \n PATH \n BODY. The path names the account, so a
 * request signed for one account never passes for another's.
 */
export function signFeedRequest(secret: string, timestamp: string, path: string, body: Uint8Array): string {
  return feedDigest(secret, timestamp, path, body).toString("hex");
}

function feedDigest(secret: string, timestamp: string, path: string, body: Uint8Array): Buffer {
  const hmac = createHmac("sha256", keyOf(secret));
  hmac.update(`${timestamp}\n${path}\n`, "utf8");
  hmac.update(body);
  return hmac.digest();
}

/** Constant-time; never throws, whatever the header holds. */
export function verifyFeedRequest(
  secret: string,
  parts: { timestamp: string; path: string; body: Uint8Array },
  signature: string,
): boolean {
  if (!LOWER_HEX_SHA256.test(signature)) return false;
  const expected = feedDigest(secret, parts.timestamp, parts.path, parts.body);
  return timingSafeEqual(expected, Buffer.from(signature, "hex"));
}
