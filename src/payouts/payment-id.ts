/**
 * A payout attempt's payment id: ISO 20022's EndToEndId and the text the bank carries to the
 * statement. Upper-case letters and digits only (banks drop or change anything else), without the
 * letters read as digits (I, L, O, U: Crockford's base 32), 16 characters, random: a later attempt
 * of the same withdrawal gets a new one, and nobody can compute one from another.
 */
import { randomBytes } from "node:crypto";

const ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
export const PAYMENT_ID_PREFIX = "PI";
const RANDOM_CHARACTERS = 14;

export function newPaymentId(): string {
  const bytes = randomBytes(RANDOM_CHARACTERS);
  let id = PAYMENT_ID_PREFIX;
  for (const b of bytes) id += ALPHABET[b & 31];
  return id;
}

/** Whether a text has a payment id's shape (what a bank's line may carry back). */
export function isPaymentId(text: string): boolean {
  return new RegExp(`^${PAYMENT_ID_PREFIX}[${ALPHABET}]{${RANDOM_CHARACTERS}}$`).test(text);
}
