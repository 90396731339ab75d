/**
 * Time-based one-time codes (RFC 6238) as every authenticator app reads them: HMAC-SHA1, six digits,
 * 30-second steps. A code is taken one step either side of now, for a phone clock a little off.
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

export const TOTP_DIGITS = 6;
const STEP_MS = 30_000;
const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

/** A new secret: 160 bits, the size RFC 4226 recommends. */
export function newTotpSecret(): Buffer {
  return randomBytes(20);
}

/** RFC 4648 base32 without padding: what an authenticator app takes when typed in. */
export function base32(bytes: Buffer): string {
  let bits = 0;
  let value = 0;
  let out = "";
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += ALPHABET[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += ALPHABET[(value << (5 - bits)) & 31];
  return out;
}

export function fromBase32(text: string): Buffer {
  let bits = 0;
  let value = 0;
  const out: number[] = [];
  for (const ch of text.replace(/[\s=]/g, "").toUpperCase()) {
    const index = ALPHABET.indexOf(ch);
    if (index < 0) throw new Error("not base32");
    value = (value << 5) | index;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 255);
      bits -= 8;
    }
  }
  return Buffer.from(out);
}

export function totpStep(now: number): number {
  return Math.floor(now / STEP_MS);
}

/** The code for one time step (RFC 4226's dynamic truncation), as a zero-padded string. */
export function totpCode(secret: Buffer, step: number, digits = TOTP_DIGITS): string {
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(step));
  const mac = createHmac("sha1", secret).update(counter).digest();
  const offset = (mac[mac.length - 1] ?? 0) & 15;
  const binary = mac.readUInt32BE(offset) & 0x7fffffff;
  return String(binary % 10 ** digits).padStart(digits, "0");
}

/**
 * The time step whose code `code` is (now, one before, one after), or undefined. Compared in
 * constant time; anything but six digits is no code at all. The caller must refuse a step already
 * used, so that a code seen over a shoulder cannot be used again.
 */
export function matchTotp(secret: Buffer, code: string, now: number): number | undefined {
  const given = code.replace(/\s/g, "");
  if (!/^\d{6}$/.test(given)) return undefined;
  const current = totpStep(now);
  let matched: number | undefined;
  for (const step of [current - 1, current, current + 1]) {
    if (timingSafeEqual(Buffer.from(totpCode(secret, step)), Buffer.from(given))) matched ??= step;
  }
  return matched;
}

/** What the QR code carries: the otpauth URI authenticator apps scan (Google's Key URI format). */
export function otpauthUri(secret: Buffer, account: string, issuer = "payintake"): string {
  const label = `${encodeURIComponent(issuer)}:${encodeURIComponent(account)}`;
  return `otpauth://totp/${label}?secret=${base32(secret)}&issuer=${encodeURIComponent(issuer)}&algorithm=SHA1&digits=${TOTP_DIGITS}&period=30`;
}
