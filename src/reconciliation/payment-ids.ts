/**
 * Payment ids as a line shows them. An attempt to pay a payout has its own id: `PI` and upper-case
 * letters and digits, at most 35 characters (ISO 20022's EndToEndId, and the description the bank
 * carries). Banks put it anywhere in a narrative and may cut it short, so a line's text gives
 * tokens that are whole ids or their first characters; which of them name a payout is the pool's to
 * say (payout-pool.ts).
 */
export const PAYMENT_ID = /^PI[A-Z0-9]{1,33}$/;
export const PAYMENT_ID_MAX = 35;
/**
 * The fewest characters of a cut id that may still name a payout: ten give 36^8 ids after `PI`,
 * so a pool of any size we run has no two sharing them by chance.
 */
export const MIN_SEEN = 10;

/** Tokens that look like an id: `PI` after a non-alphanumeric, then letters and digits. */
const TOKEN = /(?<![A-Z0-9])PI[A-Z0-9]+/g;

/**
 * The ids (whole or cut) a text shows, upper-cased as banks print them, at most `max` of them: a
 * description is at most 500 characters, so the bound only guards a caller that passes more.
 */
export function idsInText(text: string, max = 64): string[] {
  const found: string[] = [];
  for (const m of text.toUpperCase().matchAll(TOKEN)) {
    if (m[0].length > PAYMENT_ID_MAX) continue;
    if (!found.includes(m[0])) found.push(m[0]);
    if (found.length >= max) break;
  }
  return found;
}
