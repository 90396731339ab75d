/**
 * The sender in a Turkish bank's free-text MT940 narrative (`:86:` without `?NN` subfields), such
 * as "FAST GELEN AHMET YILMAZ TR12 0006 ... ODEME K7M3PX" or "HAVALE GONDEREN: AYSE KAYA ACIKLAMA:
 * ...". Only after a label that says the next words are the sender; then the words that are
 * letters, up to the first word that is a label, a number or an IBAN. No label, no name: a name
 * guessed from anywhere in the text could be the recipient's or a word of the description.
 */
const LABELS = [
  ["GONDEREN"],
  ["GÖNDEREN"],
  ["GOND"],
  ["GÖND"],
  ["FAST", "GELEN"],
  ["EFT", "GELEN"],
  ["HAVALE", "GELEN"],
  ["GELEN", "FAST"],
  ["GELEN", "EFT"],
  ["GELEN", "HAVALE"],
];
/** Words that end a name: what banks write after it. */
const STOP = new Set([
  "ACIKLAMA",
  "AÇIKLAMA",
  "ODEME",
  "ÖDEME",
  "REF",
  "REFERANS",
  "SORGU",
  "NO",
  "ALICI",
  "HESAP",
  "IBAN",
  "TUTAR",
  "FAST",
  "EFT",
  "HAVALE",
  "GELEN",
  "TARIH",
  "TARİH",
  "MASRAF",
  "GONDEREN",
  "GÖNDEREN",
  "GOND",
  "GÖND",
]);
const NAME_WORD = /^[\p{L}][\p{L}.']*$/u;
const MAX_WORDS = 5;

const words = (text: string) =>
  text
    .replace(/[:;,/-]/g, " ")
    .split(/\s+/)
    .filter((w) => w !== "")
    .map((w) => w.replace(/\.$/, ""));

export function senderInNarrative(text: string): string | null {
  const all = words(text);
  const upper = all.map((w) => w.toLocaleUpperCase("tr"));
  for (let i = 0; i < all.length; i++) {
    const label = LABELS.find((l) => l.every((w, k) => upper[i + k] === w));
    if (!label) continue;
    const name: string[] = [];
    for (let j = i + label.length; j < all.length && name.length < MAX_WORDS; j++) {
      const w = all[j] as string;
      if (STOP.has(upper[j] as string) || !NAME_WORD.test(w) || /^TR\d/i.test(w)) break;
      name.push(w);
    }
    if (name.length >= 2) return name.join(" ");
  }
  return null;
}

/** An IBAN written in a narrative, spaced or not (TR and 24 digits). */
export function ibanInNarrative(text: string): string | null {
  const m = /\bTR\s?\d{2}(?:\s?\d){22}\b/i.exec(text);
  return m ? m[0].replace(/\s+/g, "").toUpperCase() : null;
}
