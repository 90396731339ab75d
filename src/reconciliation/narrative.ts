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

/**
 * Words that say a line gives money back ("İADE", "IADE", "İADESİ"): read with Turkish case rules,
 * as whole words. A fee's refund ("KOMİSYON İADESİ") is no payout's return.
 */
const RETURN_WORD = /(?<![\p{L}\p{N}])(?:İADE|IADE|İADESİ|IADESI)(?![\p{L}\p{N}])/u;
/** Words of a bank's charge: its fee, its commission, the tax on them (BSMV). */
const FEE_WORD =
  /(?<![\p{L}\p{N}])(?:MASRAF\p{L}*|ÜCRET\p{L}*|UCRET\p{L}*|KOMİSYON\p{L}*|KOMISYON\p{L}*|BSMV)(?![\p{L}\p{N}])/u;
/** ISO 20022 return reasons banks write in a narrative (ExternalReturnReason1Code). */
const RETURN_REASON =
  /(?<![A-Z0-9])(AC0[1-9]|AC1[3-6]|AG0[1-3]|AM0[1-9]|AM1[0-9]|BE0[1-7]|MD0[1-7]|MS0[23]|RC0[1-9]|RR0[1-4]|FF0[1-5]|NARR)(?![A-Z0-9])/;

const upper = (text: string) => text.toLocaleUpperCase("tr");

/** A narrative that says the line returns a payout, with the ISO reason it names, or null. */
export function returnInNarrative(text: string): { reason: string | null } | null {
  const words = upper(text);
  if (!RETURN_WORD.test(words) || FEE_WORD.test(words)) return null;
  return { reason: RETURN_REASON.exec(text.toUpperCase())?.[1] ?? null };
}

/**
 * Whether a debit's narrative is a bank's charge: a fee word and no IBAN. Conservative on purpose:
 * a payout taken for a fee is only left unproven (operators see it), while a fee taken for a payout
 * could prove one; a payout's narrative names its payee's IBAN, a charge's does not.
 */
export function feeInNarrative(text: string): boolean {
  return FEE_WORD.test(upper(text)) && ibanInNarrative(text) === null;
}
