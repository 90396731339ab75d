/**
 * Withdrawal IBANs are deliberately loose (the contract never rejects one); this flag tells the
 * operator whether the value is a well-formed Turkish IBAN (TR, 26 characters, ISO 13616 mod-97).
 */
export function isValidTurkishIban(raw: string): boolean {
  const iban = raw.replace(/[\s-]+/g, "").toUpperCase();
  if (!/^TR\d{24}$/.test(iban)) return false;
  const rearranged = iban.slice(4) + iban.slice(0, 4);
  let remainder = 0;
  for (const ch of rearranged) {
    const digits = ch >= "A" && ch <= "Z" ? String(ch.charCodeAt(0) - 55) : ch;
    for (const d of digits) remainder = (remainder * 10 + (d.charCodeAt(0) - 48)) % 97;
  }
  return remainder === 1;
}

/**
 * A Turkish IBAN for a 22-digit account number (bank code, reserve digit, account), with the check
 * digits that make it valid: for tests and benchmarks that need many accounts, which must pass the
 * same check a payment account's IBAN does.
 */
export function turkishIbanFor(bban: string): string {
  if (!/^\d{22}$/.test(bban)) throw new Error("a Turkish IBAN's account part is 22 digits");
  // ISO 13616: the account part, then T=29 R=27 and 00, mod 97; the check digits are 98 minus it.
  let remainder = 0;
  for (const d of `${bban}292700`) remainder = (remainder * 10 + (d.charCodeAt(0) - 48)) % 97;
  return `TR${String(98 - remainder).padStart(2, "0")}${bban}`;
}
