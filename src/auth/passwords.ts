import { randomBytes, scrypt, timingSafeEqual } from "node:crypto";

/**
 * Operator passwords, hashed with scrypt (N=2^15, r=8, p=1: about 50 ms and 32 MiB per check) and
 * a random salt. Stored as "scrypt$N$r$p$salt$hash". Verification is constant-time and never throws.
 */
const N = 32_768;
const R = 8;
const P = 1;
const KEY = 32;

function derive(password: string, salt: Buffer, n: number, r: number, p: number): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(password, salt, KEY, { N: n, r, p, maxmem: 128 * n * r * 2 }, (err, key) =>
      err ? reject(err) : resolve(key),
    ),
  );
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, N, R, P);
  return `scrypt$${N}$${R}$${P}$${salt.toString("base64url")}$${key.toString("base64url")}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  try {
    const [scheme, n, r, p, salt, hash] = stored.split("$");
    if (scheme !== "scrypt" || !salt || !hash) return false;
    const expected = Buffer.from(hash, "base64url");
    const key = await derive(password, Buffer.from(salt, "base64url"), Number(n), Number(r), Number(p));
    return key.length === expected.length && timingSafeEqual(key, expected);
  } catch {
    return false;
  }
}

/** A one-time password for a new operator: 18 random bytes, base64url (24 characters). */
export const newPassword = () => randomBytes(18).toString("base64url");
