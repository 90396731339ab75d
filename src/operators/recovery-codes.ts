/**
 * Recovery codes for two-step sign-in (as GitHub and Stripe give them): ten single-use codes, shown
 * once when the second factor is turned on or the codes are replaced, each taken at sign-in in place
 * of the authenticator's code. A code is ten base32 characters (50 bits), shown as `xxxxx-xxxxx`;
 * it is read back case-insensitively, with or without the dash and spaces.
 */
import { createHash, randomBytes } from "node:crypto";
import type { Repositories } from "../store/index.js";
import { base32 } from "./totp.js";

export const RECOVERY_CODE_COUNT = 10;
const LENGTH = 10;

/** The code as typed, made canonical (upper case, no dash or spaces); undefined: not a recovery code. */
export function normaliseRecoveryCode(code: string): string | undefined {
  const plain = code.replace(/[\s-]/g, "").toUpperCase();
  return /^[A-Z2-7]{10}$/.test(plain) ? plain : undefined;
}

/**
 * Only this hash is stored. A plain SHA-256, not a slow password hash: a code has 50 random bits,
 * not a person's choice, so no dictionary shortens the search, and one found in a copy of the table
 * still does not sign in without the operator's password (scrypt-hashed). Online, every wrong code
 * counts against the lockout like a wrong password. A fast hash also lets one indexed UPDATE find
 * and take the code, which a salted slow hash (one verify per stored code) would not.
 */
export function recoveryCodeHash(normalised: string): string {
  return createHash("sha256").update(normalised, "utf8").digest("hex");
}

/** Ten new codes as shown to the operator, replacing all the operator's earlier ones in the store. */
export async function replaceRecoveryCodes(
  repos: Repositories,
  operatorId: number,
  now: number,
): Promise<string[]> {
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, () => {
    // 50 bits: 7 random bytes give 56, of which base32 keeps the first ten characters' worth.
    const text = base32(randomBytes(7)).slice(0, LENGTH).toLowerCase();
    return `${text.slice(0, 5)}-${text.slice(5)}`;
  });
  const hashes = codes.map((c) => recoveryCodeHash(normaliseRecoveryCode(c) as string));
  await repos.recoveryCodes.replace(operatorId, hashes, now);
  return codes;
}

/**
 * Whether `code` is one of the operator's unused recovery codes, taking it in the same statement:
 * of two sign-ins sending it at once, one gets it.
 */
export async function takeRecoveryCode(
  repos: Repositories,
  operatorId: number,
  code: string,
  now: number,
): Promise<boolean> {
  const normalised = normaliseRecoveryCode(code);
  return (
    normalised !== undefined &&
    (await repos.recoveryCodes.take(operatorId, recoveryCodeHash(normalised), now))
  );
}
