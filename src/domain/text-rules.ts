/** Character rules shared by the request schemas. Lengths count Unicode code points, not UTF-16 units. */

export function codePointLength(value: string): number {
  let n = 0;
  for (const _ of value) n++;
  return n;
}

/**
 * Characters Unicode says render as nothing (fillers, joiners, variation selectors, the combining
 * grapheme joiner, tag characters). Some are letters (U+3164 HANGUL FILLER) or marks (U+034F), so
 * the classes below would let them in: a name or username made of them looks empty or like another.
 */
const INVISIBLE = /\p{Default_Ignorable_Code_Point}/u;

/**
 * Names: Unicode letters, spaces, hyphen, apostrophe, dot. A combining mark belongs to the letter
 * before it (a decomposed "é" is "e" + U+0301): marks with no letter to sit on are not letters.
 */
const NAME = /^(?:\p{L}\p{M}*|[ '.-])+$/u;
export function isNameText(value: string): boolean {
  return NAME.test(value) && !INVISIBLE.test(value);
}

/**
 * Usernames: letters, digits and symbols such as @ + _ . - # (e-mail and phone style). Forbidden:
 * whitespace, control and other invisible characters (format, separators, private use, unassigned,
 * default-ignorable ones such as fillers, joiners and variation selectors, the blank braille
 * pattern), and < > " ' ` \.
 */
const USERNAME_FORBIDDEN = /[\s\p{C}\p{Z}\p{Default_Ignorable_Code_Point}<>"'`\\\u2800]/u;
export function isUsernameText(value: string): boolean {
  return !USERNAME_FORBIDDEN.test(value);
}

/**
 * No stored text may carry NUL or other C0 control characters: PostgreSQL text cannot hold NUL, and
 * control characters in references or ids only ever come from broken clients or attacks. Nor the
 * characters that steer how the text around them is laid out: the bidirectional embeddings,
 * overrides and isolates (a reference ending in U+202E RIGHT-TO-LEFT OVERRIDE reverses the status an
 * operator reads next to it) and the line and paragraph separators (U+0085, U+2028, U+2029), which
 * break a log or CSV line where no newline is seen.
 */
const LAYOUT_CONTROLS = "\\u0085\\u2028\\u2029\\u202A-\\u202E\\u2066-\\u2069";
const CONTROL = new RegExp(`[\\u0000-\\u001F\\u007F${LAYOUT_CONTROLS}]`);
/** The layout controls alone (above): for text stored before they were refused. */
export const LAYOUT_CONTROL = new RegExp(`[${LAYOUT_CONTROLS}]`);
export function hasControlCharacters(value: string): boolean {
  return CONTROL.test(value);
}

/**
 * A lone UTF-16 surrogate ("R-\ud800", which JSON can carry as an escape) is not Unicode text: the
 * PostgreSQL driver sends it as U+FFFD, so "R-\ud800" and "R-\ud801" would be one reference there,
 * and what is stored would differ from what was sent. A paired surrogate is one code point, not matched.
 */
const LONE_SURROGATE = /\p{Cs}/u;
const LONE_SURROGATES = /\p{Cs}/gu;
export function hasLoneSurrogates(value: string): boolean {
  return LONE_SURROGATE.test(value);
}

/** What every text field that refuses control characters refuses, with the same message. */
export function hasInvalidCharacters(value: string): boolean {
  return hasControlCharacters(value) || hasLoneSurrogates(value);
}

const CONTROLS = new RegExp(CONTROL.source, "g");

export function withoutControlCharacters(value: string): string {
  return value.replace(CONTROLS, "");
}

export function withoutLoneSurrogates(value: string): string {
  return value.replace(LONE_SURROGATES, "");
}

/**
 * A bank's text as every door takes it (a statement file, the live feed, a line an operator
 * types): C0 control characters but tab and line breaks are refused (a NUL is a broken file, never
 * a payer's word); the layout controls above, the marks that set a text's direction (U+200E,
 * U+200F, U+061C) and lone surrogates are dropped, since a payer's transfer text may carry them and
 * the bank passes it on; any run of white space (line breaks and separators among it) is one
 * space. Undefined when the text is refused.
 */
const STATEMENT_CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/u;
const STATEMENT_DROPPED = /[\u202A-\u202E\u2066-\u2069\u200E\u200F\u061C]|\p{Cs}/gu;
const STATEMENT_SPACE = /[\s\u0085\u2028\u2029]+/gu;
export function statementText(value: string): string | undefined {
  if (STATEMENT_CONTROL.test(value)) return undefined;
  return value.replace(STATEMENT_DROPPED, "").replace(STATEMENT_SPACE, " ").trim();
}
