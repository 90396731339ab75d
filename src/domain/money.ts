/**
 * Money is integer minor units (kuruş) from the parser to the database. Amounts arrive as decimal
 * strings and are parsed digit by digit: no floating point ever touches them.
 */
export const MAX_AMOUNT_MINOR = 99_999_999_999; // 999999999.99

export type AmountParse =
  | { ok: true; minor: number }
  | { ok: false; rule: "format" | "decimals" | "positive" | "max" };

/** A decimal number; a minus sign is read so that "-1" is told it is not greater than 0. */
const DECIMAL = /^(-?)(\d+)(?:\.(\d+))?$/;

export function parseAmount(text: string): AmountParse {
  const match = DECIMAL.exec(text);
  if (!match) return { ok: false, rule: "format" };
  const whole = (match[2] ?? "").replace(/^0+(?=\d)/, "");
  const fraction = match[3] ?? "";
  if (fraction.length > 2) return { ok: false, rule: "decimals" };
  if (match[1] === "-") return { ok: false, rule: "positive" };
  if (whole.length > 9) return { ok: false, rule: "max" };
  const minor = Number(whole) * 100 + Number(fraction.padEnd(2, "0"));
  if (minor <= 0) return { ok: false, rule: "positive" };
  if (minor > MAX_AMOUNT_MINOR) return { ok: false, rule: "max" };
  return { ok: true, minor };
}

/** "150.00" for 15000: the contract's 2-decimal form, used in JSON bodies and hashcodes. */
export function formatMinor(minor: number): string {
  const sign = minor < 0 ? "-" : "";
  const abs = Math.abs(minor);
  const whole = Math.floor(abs / 100);
  const cents = abs % 100;
  return `${sign}${whole}.${cents < 10 ? "0" : ""}${cents}`;
}
