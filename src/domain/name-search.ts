/**
 * Payer names as operators search for them. A bank statement line names the sender as the bank
 * writes it, often in capitals and sometimes without Turkish letters ("SUKRU OZTURK" for "Şükrü
 * Öztürk"); operators type names the same way. So names are compared folded: lower case, accents
 * and other marks dropped, the dotless ı read as i, anything that is not a letter or a digit a word
 * break.
 */

const MARKS = /\p{M}/gu;
const WORD_BREAK = /[^\p{L}\p{N}]+/u;

/** The folded words of a name or of a search. */
export function nameWords(text: string): string[] {
  // Compatibility forms first ("𝐀" and "ℌ" are letters whose capitals only NFKD brings out), then
  // lower case ("İ" lowers to "i" plus a combining dot), then NFKD again for what lowering composed,
  // and the marks go: the key is lower case on both stores, whose LIKE treats case differently.
  const folded = text
    .normalize("NFKD")
    .toLowerCase()
    .normalize("NFKD")
    .replace(MARKS, "")
    .replaceAll("ı", "i");
  return folded.split(WORD_BREAK).filter((w) => w !== "");
}

/**
 * The stored search key of a payer's name: its folded words, each after a space, so that the store
 * can find a word's beginning with `LIKE '% word%'` (words hold no `%` or `_`: they are not letters).
 */
export function payerNameKey(first: string, middle: string | null, last: string): string {
  const words = nameWords(middle === null ? `${first} ${last}` : `${first} ${middle} ${last}`);
  return words.length === 0 ? "" : ` ${words.join(" ")}`;
}

/** At most this many words in one name search: each is a scan condition. */
export const MAX_NAME_SEARCH_WORDS = 5;
