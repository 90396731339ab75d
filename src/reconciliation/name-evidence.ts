import { nameWords } from "../domain/name-search.js";

/**
 * How well the sender's name on a statement line names a deposit's payer. Banks write names their
 * own way: in capitals, often without Turkish letters ("SUKRU OZTURK" for "Şükrü Öztürk"), surname
 * first, with or without the middle name, cut at 35 characters or so, a first name as an initial.
 * Both sides are folded alike (domain/name-search.ts: case, marks, ı/i) and compared as sets of
 * words, so order does not count.
 *
 * - `full`: every word of the payer's first and last names is there (the last word of a long,
 *   cut name may be a beginning of at least three letters), the middle name is there or absent,
 *   and no other word, but for one where the merchant sent no middle name (the payer's own). Only a
 *   full match may ever approve a deposit (matching.ts).
 * - `partial`: the surname and an initial or the first name, or the surname alone, or the first
 *   name and more than one other word: a hint for the operator.
 * - `none`: none of that, or no name on the line.
 */
export type NameEvidence = "full" | "partial" | "none";

export interface PayerName {
  firstName: string;
  middleName: string | null;
  lastName: string;
}

/**
 * Names this long may have been cut by the bank (SWIFT's 35-character fields): their last word may
 * be a beginning. A word known only by its beginning never proves a surname: at most "partial".
 */
const CUT_FROM = 35;
const MIN_CUT_WORD = 3;

/** Which sender word stands for `wanted`: equal, or (the last word of a cut name) its beginning. */
function findWord(sender: string[], wanted: string, cutLast: boolean, used: Set<number>): number {
  for (let i = 0; i < sender.length; i++) if (!used.has(i) && sender[i] === wanted) return i;
  if (!cutLast) return -1;
  const last = sender.length - 1;
  const word = sender[last] as string;
  return !used.has(last) && word.length >= MIN_CUT_WORD && wanted.startsWith(word) ? last : -1;
}

/** A sender's name as compared: its folded words, and whether the bank may have cut it. */
export interface SenderName {
  words: string[];
  cut: boolean;
}

export function senderName(name: string | null): SenderName | null {
  if (name === null) return null;
  const words = nameWords(name);
  return words.length === 0 ? null : { words, cut: name.trim().length >= CUT_FROM };
}

type PayerWords = { first: string[]; middle: string[]; last: string[] };
/** A payer's folded words, once per payer object: a line is compared with many deposits. */
const payerWords = new WeakMap<PayerName, PayerWords>();
function wordsOf(payer: PayerName): PayerWords {
  let words = payerWords.get(payer);
  if (!words) {
    words = {
      first: nameWords(payer.firstName),
      middle: payer.middleName === null ? [] : nameWords(payer.middleName),
      last: nameWords(payer.lastName),
    };
    payerWords.set(payer, words);
  }
  return words;
}

export function nameEvidence(name: string | null | SenderName, payer: PayerName): NameEvidence {
  const given = typeof name === "string" || name === null ? senderName(name) : name;
  if (given === null) return "none";
  const { words: sender, cut } = given;
  const { first, middle, last } = wordsOf(payer);
  if (first.length === 0 || last.length === 0) return "none";
  // Most deposits a line is compared with share no word with it: answered without building anything.
  if (!sharesAWord(sender, cut, first) && !sharesAWord(sender, cut, last)) return "none";
  const used = new Set<number>();
  const found = (words: string[]) =>
    words.filter((w) => {
      const at = findWord(sender, w, cut, used);
      if (at >= 0) used.add(at);
      return at >= 0;
    }).length;
  const lastFound = found(last);
  // The surname matched only by a cut beginning ("KARA" for Karagöz) is another name as likely.
  const lastCut = last.some((w) => !sender.includes(w));
  const firstFound = found(first);
  const middleFound = found(middle);
  const extra = sender.length - used.size;
  if (lastFound === last.length && firstFound === first.length) {
    // The middle name as given or left out; one word more only where the merchant sent none (a
    // payer's other middle name is another person's as likely as theirs).
    const middleOk = middleFound === middle.length || middleFound === 0;
    if (middleOk && !lastCut && extra <= (middle.length === 0 ? 1 : 0)) return "full";
    return "partial";
  }
  if (lastFound === last.length) return "partial";
  if (firstFound === first.length && hasInitial(sender, used, last)) return "partial";
  return "none";
}

/** Whether a sender word is one of `words`, or (a cut name's last word) the beginning of one. */
function sharesAWord(sender: string[], cut: boolean, words: string[]): boolean {
  const lastAt = sender.length - 1;
  for (let i = 0; i <= lastAt; i++) {
    const w = sender[i] as string;
    for (const wanted of words) {
      if (w === wanted) return true;
      if (cut && i === lastAt && w.length >= MIN_CUT_WORD && wanted.startsWith(w)) return true;
    }
  }
  return false;
}

/** Whether an unused sender word is the initial of the payer's surname ("AHMET Y."). */
function hasInitial(sender: string[], used: Set<number>, last: string[]): boolean {
  const initial = last[0]?.[0];
  return sender.some((w, i) => !used.has(i) && w.length === 1 && w === initial);
}
