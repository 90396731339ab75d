/**
 * A statement's decimal amount ("1500.50" in camt.053, "1500,50" in MT940) in minor units, read as
 * text: never through a floating-point number. Two decimals at most (the lira's kuruş); undefined
 * for anything else, which the reader reports as a malformed statement.
 */
const DECIMAL = /^(\d{1,15})(?:[.,](\d{0,2}))?$/;

export function minorUnits(text: string): number | undefined {
  const m = DECIMAL.exec(text.trim());
  if (!m) return undefined;
  const whole = Number(m[1]);
  const fraction = Number((m[2] ?? "").padEnd(2, "0"));
  const minor = whole * 100 + fraction;
  return Number.isSafeInteger(minor) ? minor : undefined;
}

export class StatementError extends Error {}
