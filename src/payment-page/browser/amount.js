// How an amount typed by a person is read: by the payment page (a module of its own, served next to
// page.js) and by the operator console (bundled into it), so that a payer and an operator are held
// to the same rules. The API's own amount rules stay in src/domain/money.ts; these only turn what a
// person types into the API's form ("1500.50"), and never guess.

/** The typed amount without spaces and without a "TL" or "₺" typed before or after it. */
export const bareAmount = (text) => text.replace(/\s/g, "").replace(/^(₺|TL)|(TL|₺)$/gi, "");

/**
 * "1.500" or "12.500": one thousands dot and no decimals. 1500, or 1,5 written with three decimals?
 * Not guessed at: the one to ask the person about.
 */
export const dottedThousands = (text) => /^[1-9]\d{0,2}\.\d{3}$/.test(bareAmount(text));

/**
 * The typed amount as the API's decimal text, or null when it cannot be read. Read: digits with a
 * decimal comma or point and at most two decimals ("1500", "1500,5", "1500.50"); Turkish grouping
 * ("1.500,50", "1.500.000", "1.500.000,00": dots between groups of exactly three digits, a decimal
 * comma last), where two dots or a comma after the dot leave no doubt that the dots group thousands.
 * Not read, as ambiguous: "1.500" (above) and "12,345" (three decimals, or a thousands comma?).
 * Zero and more than nine whole digits (the API's largest amount) are not amounts either; leading
 * zeros are dropped.
 */
export function readAmount(text) {
  const v = bareAmount(text);
  let plain = null;
  // A first group of "0" is no grouping ("0.500" is no thousand): read as nothing.
  if (/^[1-9]\d{0,2}(\.\d{3})+,\d{1,2}$/.test(v) || /^[1-9]\d{0,2}(\.\d{3}){2,}$/.test(v))
    plain = v.replace(/\./g, "").replace(",", ".");
  else if (/^\d+([.,]\d{1,2})?$/.test(v)) plain = v.replace(",", ".");
  if (plain === null) return null;
  plain = plain.replace(/^0+(?=\d)/, "");
  return /^\d{1,9}(\.\d{1,2})?$/.test(plain) && /[1-9]/.test(plain) ? plain : null;
}
