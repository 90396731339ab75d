/**
 * How well the sender's name on a statement line names a deposit's payer. Banks write names their
 * own way: in capitals, often without Turkish letters ("SUKRU OZTURK" for "Şükrü Öztürk"), surname
 * first, with or without the middle name, cut at 35 characters or so, a first name as an initial.
 * Both sides are folded alike (domain/name-search.ts: case, marks, ı/i) and compared as sets of
 * words, so order does not count.
 *
 * - `full`: every word of the payer's first and last names is there, the middle name is there or
 *   absent, and no other word, but for one where the merchant sent no middle name (the payer's
 *   own); a long name the bank may have cut, only as below (CUT_FROM); never a name with a company's
 *   legal form in it. Only a full match may ever approve a deposit (matching.ts).
 * - `partial`: the surname and an initial or the first name, or the surname alone, or the first
 *   name and more than one other word, or a full match short of the above: a hint for the operator.
 * - `none`: none of that, or no name on the line.
 */
import { nameWords } from "../domain/name-search.js";

export type NameEvidence = "full" | "partial" | "none";

export interface PayerName {
  firstName: string;
  middleName: string | null;
  lastName: string;
}

/**
 * Names this long may have been cut by the bank (SWIFT's 35-character fields): their last word may
 * be a beginning, and whatever followed it is unseen. A cut name proves a payer only when the cut
 * falls inside its last word, that word the beginning of the one word of the payer's not yet found
 * and every other word there as it is; and only when no other deposit the line may be for has a
 * payer the visible part fits as well (matching.ts asks `nameFits` of each). "ABDURRAH" is
 * Abdurrahim's beginning and Abdurrahman's.
 */
const CUT_FROM = 35;
const MIN_CUT_WORD = 3;

/**
 * Words only a company writes after its name (Turkish and foreign legal forms, folded): a sender
 * with one is a firm, never a person, however well the rest fits ("KEMAL SUNAL LTD"). "A.Ş." folds
 * to the two words "a" "s" and is found as that pair.
 */
const COMPANY_WORDS = new Set([
  "ltd",
  "sti",
  "ltdsti",
  "as",
  "tic",
  "san",
  "inc",
  "llc",
  "plc",
  "gmbh",
  "corp",
  "limited",
  "anonim",
  "sirketi",
  "ticaret",
  "sanayi",
  "holding",
  "koll",
  "kom",
]);

function namesACompany(words: readonly string[]): boolean {
  return words.some((w, i) => COMPANY_WORDS.has(w) || (w === "a" && words[i + 1] === "s"));
}

/** A sender's name as compared: its folded words, whether the bank may have cut it, a firm's. */
export interface SenderName {
  words: string[];
  cut: boolean;
  company: boolean;
}

export function senderName(name: string | null): SenderName | null {
  if (name === null) return null;
  const words = nameWords(name);
  return words.length === 0
    ? null
    : { words, cut: name.trim().length >= CUT_FROM, company: namesACompany(words) };
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

/** Which sender word stands for which of the payer's, and what is left over. */
interface WordMatch {
  lastFound: number;
  firstFound: number;
  middleFound: number;
  /** A cut name's last word stands, by its beginning, for a word of the payer's surname. */
  lastByBeginning: boolean;
  /** A cut name's last word stands, by its beginning, for one of the payer's words. */
  cutUsed: boolean;
  /** The sender's last word stands for one of the payer's words as it is. */
  lastWhole: boolean;
  /** Sender words that stand for none of the payer's. */
  extra: number;
  used: Set<number>;
}

/**
 * Every word first as it is, anywhere; then a cut name's last word, if still free, as the beginning
 * of a word not yet found (the surname's first: a surname by its beginning never proves).
 */
function matchWords(sender: SenderName, payer: PayerWords): WordMatch {
  const { words } = sender;
  const used = new Set<number>();
  const parts = [payer.last, payer.first, payer.middle];
  const found = parts.map((part) =>
    part.map((w) => {
      const at = words.findIndex((s, i) => !used.has(i) && s === w);
      if (at >= 0) used.add(at);
      return at >= 0;
    }),
  );
  const lastAt = words.length - 1;
  const lastWhole = used.has(lastAt);
  let cutPart = -1;
  const tail = words[lastAt] as string;
  if (sender.cut && !lastWhole && tail.length >= MIN_CUT_WORD)
    for (const [p, part] of parts.entries()) {
      const at = part.findIndex((w, i) => !found[p]?.[i] && w.startsWith(tail));
      if (at < 0) continue;
      (found[p] as boolean[])[at] = true;
      used.add(lastAt);
      cutPart = p;
      break;
    }
  const count = (p: number) => found[p]?.filter(Boolean).length ?? 0;
  return {
    lastFound: count(0),
    firstFound: count(1),
    middleFound: count(2),
    lastByBeginning: cutPart === 0,
    cutUsed: cutPart >= 0,
    lastWhole,
    extra: words.length - used.size,
    used,
  };
}

/**
 * Whether the name could be the payer's as far as it is seen: first and last names there (a cut
 * name's last word a beginning of any of them), the middle name there or left out, and one word more
 * only where the merchant sent no middle name (the payer's own, as likely as not).
 */
function fits(m: WordMatch, payer: PayerWords): boolean {
  const middleOk = m.middleFound === payer.middle.length || m.middleFound === 0;
  return (
    m.lastFound === payer.last.length &&
    m.firstFound === payer.first.length &&
    middleOk &&
    m.extra <= (payer.middle.length === 0 ? 1 : 0)
  );
}

/** Whether the payer is proven by the name alone, before other deposits are looked at. */
function proves(sender: SenderName, m: WordMatch, payer: PayerWords): boolean {
  if (sender.company || !fits(m, payer)) return false;
  if (!sender.cut) return true;
  // Cut inside the last word: it stands for the one word of the payer's not there as it is, and
  // that is not the surname (another surname begins so as likely).
  if (m.cutUsed) return !m.lastByBeginning && m.middleFound === payer.middle.length && m.extra === 0;
  // A cut name ending in a word that is none of the payer's: the beginning of a word unknown.
  return m.lastWhole;
}

export function nameEvidence(name: string | null | SenderName, payer: PayerName): NameEvidence {
  const given = typeof name === "string" || name === null ? senderName(name) : name;
  if (given === null) return "none";
  const words = wordsOf(payer);
  const { first, last } = words;
  if (first.length === 0 || last.length === 0) return "none";
  if (sharesNoWord(given, words)) return "none";
  const m = matchWords(given, words);
  if (proves(given, m, words)) return "full";
  if (m.lastFound === last.length) return "partial";
  if (m.firstFound === first.length && hasInitial(given.words, m.used, last)) return "partial";
  return "none";
}

/**
 * Whether what is seen of a cut name (or the whole of a name) could be the payer's, whether or not
 * it proves them: another deposit whose payer it fits leaves a cut name proving no one.
 */
export function nameFits(sender: SenderName, payer: PayerName): boolean {
  const words = wordsOf(payer);
  if (words.first.length === 0 || words.last.length === 0) return false;
  if (sharesNoWord(sender, words)) return false;
  return fits(matchWords(sender, words), words);
}

/** Whether the sender's name could be anything but `none` for this payer: a word in common. */
export function mayNamePayer(sender: SenderName, payer: PayerName): boolean {
  const words = wordsOf(payer);
  return words.first.length > 0 && words.last.length > 0 && !sharesNoWord(sender, words);
}

/** The payer's first and last words, folded: a sender that shares none of them names no one (mayNamePayer). */
export function payerKeyWords(payer: PayerName): string[] {
  const words = wordsOf(payer);
  return [...words.first, ...words.last];
}

/** A payer's name as its words: two payers with one key are one person as far as a name can tell. */
export function nameKey(payer: PayerName): string {
  const w = wordsOf(payer);
  return [...w.first, ...w.middle, ...w.last].join(" ");
}

/** Most deposits a line is compared with share no word with it: answered without building anything. */
function sharesNoWord(sender: SenderName, payer: PayerWords): boolean {
  return (
    !sharesAWord(sender.words, sender.cut, payer.first) && !sharesAWord(sender.words, sender.cut, payer.last)
  );
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
