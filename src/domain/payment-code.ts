/**
 * A deposit's payment code: what the payer writes in the transfer's description ("Açıklama") so
 * that the bank's statement names the deposit (docs/reconciliation.md). Eight characters from an
 * alphabet without look-alikes (no 0/O/D/Q, 1/I/L, 2/Z, 5/S, 6/G, 8/B, U/V): seven random, then a
 * check character (Luhn mod N), so that any one character mistyped, and most neighbours swapped,
 * give a code that is no code at all rather than another deposit's.
 */
import { createHash, createHmac, randomInt } from "node:crypto";

export const CODE_ALPHABET = "ACEFHJKMNPRTWXY34679";
export const CODE_LENGTH = 8;
const N = CODE_ALPHABET.length;
const INDEX = new Map([...CODE_ALPHABET].map((c, i) => [c, i]));

/** The Luhn mod N sum of `chars` as if a check character followed them. */
function checkIndex(body: string): number {
  let sum = 0;
  let double = true;
  for (let i = body.length - 1; i >= 0; i--) {
    let v = (INDEX.get(body[i] as string) as number) * (double ? 2 : 1);
    v = Math.floor(v / N) + (v % N);
    sum += v;
    double = !double;
  }
  return (N - (sum % N)) % N;
}

export function newPaymentCode(random: (max: number) => number = randomInt): string {
  let body = "";
  for (let i = 0; i < CODE_LENGTH - 1; i++) body += CODE_ALPHABET[random(N)];
  return body + CODE_ALPHABET[checkIndex(body)];
}

/** Whether `code` (upper case, no spaces) is a well-formed code: alphabet and check character. */
export function isPaymentCode(code: string): boolean {
  if (code.length !== CODE_LENGTH) return false;
  for (const c of code) if (!INDEX.has(c)) return false;
  return CODE_ALPHABET[checkIndex(code.slice(0, -1))] === code.at(-1);
}

/**
 * What a description holds that looks like a code: every run of eight alphabet characters once
 * spaces, dashes, dots and slashes are taken out and letters are upper-cased (payers type "ace4
 * 7kmx" as often as "ACE47KMX"). `codes` are the well-formed ones; `near` the rest, which can only
 * ever point an operator at a deposit whose code differs from one of them in one place.
 */
export function codesIn(description: string): { codes: string[]; near: string[] } {
  const cleaned = description.toUpperCase().replace(/[\s\-./_:,]+/gu, "");
  const codes = new Set<string>();
  const near = new Set<string>();
  for (let i = 0; i + CODE_LENGTH <= cleaned.length; i++) {
    const window = cleaned.slice(i, i + CODE_LENGTH);
    if (![...window].every((c) => INDEX.has(c))) continue;
    (isPaymentCode(window) ? codes : near).add(window);
  }
  return { codes: [...codes], near: [...near] };
}

/**
 * A code with each of its places in turn left open ("?CE47KMX", "A?E47KMX", …): two different codes
 * differ in exactly one place when they share one of these. A line's near codes are looked up by
 * them, so that a description full of code-like text costs each candidate eight look-ups, not a
 * comparison with every one of its near codes.
 */
export function oneOffKeys(code: string): string[] {
  return Array.from({ length: code.length }, (_, i) => `${code.slice(0, i)}?${code.slice(i + 1)}`);
}

/** Whether two codes differ in exactly one place: a code mistyped by one character. */
export function oneOff(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let differ = 0;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) differ++;
  return differ === 1;
}

/** The digest's first 8 bytes as seven characters and the check character. */
function codeOfDigest(digest: Buffer): string {
  // A 64-bit number reduced to seven characters: each of the 20^7 bodies within 2^-32 of equally
  // likely, where taking a byte per character (256 is no multiple of 20) favours 16 characters.
  let n = digest.readBigUInt64BE(0);
  return newPaymentCode((max) => {
    const d = Number(n % BigInt(max));
    n /= BigInt(max);
    return d;
  });
}

/**
 * A deposit's code under the store's payment code key: HMAC-SHA256 of its id. Without the key, a
 * payer who knows their own deposit's id and code learns nothing of any other deposit's code; the
 * key never leaves the server (sealed in the store, store/statements/payment-code-keys.ts).
 */
export function keyedPaymentCode(key: Buffer, depositId: number): string {
  return codeOfDigest(createHmac("sha256", key).update(`payintake payment code ${depositId}`).digest());
}

/**
 * The code deposits made before keyed codes were given, and keep: a hash of the id with no key,
 * so that anyone who knows the formula can work out any deposit's code from its id. Only
 * `PaymentCodes` computes it, for those deposits alone (docs/adr/0015-keyed-payment-codes.md).
 */
export function legacyPaymentCode(depositId: number): string {
  const digest = createHash("sha256").update(`payintake payment code ${depositId}`).digest();
  let i = 0;
  return newPaymentCode((max) => (digest[i++] as number) % max);
}

/**
 * The payment code of each deposit, from its id: the same code wherever it is shown (the payment
 * page, an answer) and wherever it is looked for (the matching), with nothing stored per deposit.
 * Two deposits may share one (one in 1.28 billion), which the matching treats as any two
 * candidates proven at once: it suggests instead of approving.
 */
export interface PaymentCodes {
  of(depositId: number): string;
}

export interface PaymentCodeKey {
  /** The store's own secret (32 bytes), made once per store. */
  key: Buffer;
  /**
   * The highest transaction id when the store took keyed codes (its migration): deposits up to it
   * were shown the keyless code, and keep it, so a payer who has one still pays with it.
   */
  legacyThrough: number;
}

export function createPaymentCodes({ key, legacyThrough }: PaymentCodeKey): PaymentCodes {
  if (key.length !== 32) throw new Error("the payment code key must be 32 bytes");
  return {
    of: (depositId) =>
      depositId <= legacyThrough ? legacyPaymentCode(depositId) : keyedPaymentCode(key, depositId),
  };
}
