import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

/** Lowercase hex HMAC-SHA256. */
export function hmacHex(secret: string, data: string | Uint8Array): string {
  return createHmac("sha256", secret).update(data).digest("hex");
}

/** The request signature: METHOD LF PATH LF BODY LF TIMESTAMP LF NONCE (PATH without the query). */
export function signRequest(
  secret: string,
  parts: { method: string; path: string; body: string; timestamp: string; nonce: string },
): string {
  return hmacHex(secret, [parts.method, parts.path, parts.body, parts.timestamp, parts.nonce].join("\n"));
}

export const newNonce = (): string => randomBytes(16).toString("hex");

/** Constant-time comparison of two hex strings; false for anything malformed, never a throw. */
export function sameHex(a: unknown, b: string): boolean {
  if (typeof a !== "string" || a.length !== b.length || !/^[0-9a-f]*$/.test(a)) return false;
  return timingSafeEqual(Buffer.from(a), Buffer.from(b));
}
