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
