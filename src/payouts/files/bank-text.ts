/**
 * Text as a bank carries it. A payee's name and a remittance text come from merchants and payers:
 * they may hold Turkish letters, emoji, markup, control and bidirectional characters. A bank file
 * carries none of that further than the bank accepts, and a bank never sees a character that could
 * reorder, hide or break what an operator reads in its upload screen.
 */

/** Characters that steer layout or render as nothing: dropped, never turned into a space. */
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{M}\p{Default_Ignorable_Code_Point}]/gu;
/** Any run of white space, line and paragraph separators among it, is one space. */
const WHITE = /[\s\u0085\u2028\u2029]+/gu;

/**
 * Line breaks, tabs and the other controls a person would read as a gap become a space before the
 * invisible characters go, so "Ali\nVeli" stays two words. Layout controls (U+202E and friends)
 * are format characters (Cf) and go with the invisible ones.
 */
function withoutControls(value: string): string {
  return value.replace(WHITE, " ").replace(INVISIBLE, "");
}

/** Letters that no Unicode decomposition takes to ASCII: Turkish's dotless i first. */
const LATIN_LETTERS: Readonly<Record<string, string>> = {
  ı: "i",
  ß: "ss",
  æ: "ae",
  Æ: "AE",
  œ: "oe",
  Œ: "OE",
  ø: "o",
  Ø: "O",
  ł: "l",
  Ł: "L",
  đ: "d",
  Đ: "D",
  ð: "d",
  Ð: "D",
  þ: "th",
  Þ: "TH",
};
const LATIN_LETTER = new RegExp(`[${Object.keys(LATIN_LETTERS).join("")}]`, "gu");

/**
 * The set every bank takes in a name or a remittance text, the "SEPA/Latin" set (EPC's basic Latin):
 * letters, digits, space and / - ? : ( ) . , ' +. Anything else becomes a space.
 */
const OUTSIDE_BANK_SET = /[^A-Za-z0-9/\-?:().,'+ ]/g;

/**
 * A text in the bank-safe set: Turkish and other Latin letters lose their marks (ş→s, İ→I, ğ→g,
 * é→e) through NFKD, which also takes full-width and ligature forms to ASCII ("ＡＢ"→"AB"); every
 * other character outside the set becomes a space; spaces collapse; cut to `max` characters.
 * The cut happens on plain text, before any escaping, so it never splits an XML entity.
 */
export function bankSafeText(value: string, max: number): string {
  const latin = withoutControls(value).replace(LATIN_LETTER, (c) => LATIN_LETTERS[c] ?? " ");
  const ascii = withoutControls(latin.normalize("NFKD")).replace(OUTSIDE_BANK_SET, " ");
  return cut(ascii, max);
}

/**
 * A text for a bank template whose encoding holds Turkish letters: the letters stay, control,
 * bidirectional and invisible characters go, spaces collapse, cut to `max` code points.
 */
export function plainText(value: string, max: number): string {
  return cut(withoutControls(value.normalize("NFC")), max);
}

/** Collapsed, trimmed, at most `max` code points (a surrogate pair is never split), trimmed again. */
function cut(value: string, max: number): string {
  const collapsed = value.replace(/ {2,}/g, " ").trim();
  const points = Array.from(collapsed);
  return points.length <= max ? collapsed : points.slice(0, max).join("").trimEnd();
}

/** The longest name ISO 20022 takes (Max70Text). */
export const NAME_MAX = 70;
/** The longest unstructured remittance line ISO 20022 takes (Max140Text). */
export const REMITTANCE_MAX = 140;

/**
 * The payee's name as a pain.001 file carries it; empty when nothing of it is left (a name written
 * wholly in another script), which the batching refuses before a file is made.
 */
export function bankPayeeName(payeeName: string): string {
  return bankSafeText(payeeName, NAME_MAX);
}

/**
 * The remittance text: the payment id first, so a bank that cuts the text short still carries it,
 * and it is what the statement's narrative is matched on; `text` is already made safe by the caller.
 */
export function remittanceLine(paymentId: string, text: string, max: number): string {
  return cut(`${paymentId} ${text}`, Math.max(max, paymentId.length));
}
