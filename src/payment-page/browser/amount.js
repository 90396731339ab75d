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

const TR_ONES = ["", "bir", "iki", "üç", "dört", "beş", "altı", "yedi", "sekiz", "dokuz"];
const TR_TENS = ["", "on", "yirmi", "otuz", "kırk", "elli", "altmış", "yetmiş", "seksen", "doksan"];
const EN_ONES = [
  "",
  "one",
  "two",
  "three",
  "four",
  "five",
  "six",
  "seven",
  "eight",
  "nine",
  "ten",
  "eleven",
  "twelve",
  "thirteen",
  "fourteen",
  "fifteen",
  "sixteen",
  "seventeen",
  "eighteen",
  "nineteen",
];
const EN_TENS = ["", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"];

/** 1 to 999 in Turkish words: "yüz" and "bin" take no "bir" before them. */
function trHundreds(n) {
  const h = Math.floor(n / 100);
  const words = [
    h === 0 ? "" : h === 1 ? "yüz" : `${TR_ONES[h]} yüz`,
    TR_TENS[Math.floor(n / 10) % 10],
    TR_ONES[n % 10],
  ];
  return words.filter(Boolean).join(" ");
}
function trWords(n) {
  if (n === 0) return "sıfır";
  const millions = Math.floor(n / 1_000_000);
  const thousands = Math.floor(n / 1000) % 1000;
  const rest = n % 1000;
  return [
    millions ? `${trHundreds(millions)} milyon` : "",
    thousands === 1 ? "bin" : thousands ? `${trHundreds(thousands)} bin` : "",
    rest ? trHundreds(rest) : "",
  ]
    .filter(Boolean)
    .join(" ");
}
function enHundreds(n) {
  const h = Math.floor(n / 100);
  const t = n % 100;
  const tens = t < 20 ? EN_ONES[t] : [EN_TENS[Math.floor(t / 10)], EN_ONES[t % 10]].filter(Boolean).join("-");
  return [h ? `${EN_ONES[h]} hundred` : "", tens].filter(Boolean).join(" ");
}
function enWords(n) {
  if (n === 0) return "zero";
  const millions = Math.floor(n / 1_000_000);
  const thousands = Math.floor(n / 1000) % 1000;
  const rest = n % 1000;
  return [
    millions ? `${enHundreds(millions)} million` : "",
    thousands ? `${enHundreds(thousands)} thousand` : "",
    rest ? enHundreds(rest) : "",
  ]
    .filter(Boolean)
    .join(" ");
}

/**
 * An amount in the API's form ("1500.50") in words, as a Turkish bank writes it on a transfer:
 * "bin beş yüz Türk lirası elli kuruş"; in English "one thousand five hundred Turkish lira and fifty
 * kuruş". A payer who typed a digit too many sees "on beş bin" where "bin beş yüz" was meant.
 */
export function amountInWords(plain, lang) {
  const [wholeText, fraction = ""] = plain.split(".");
  const whole = Number(wholeText);
  const kurus = Number(fraction.padEnd(2, "0"));
  if (lang === "en") {
    const lira = `${enWords(whole)} Turkish lira`;
    return kurus ? `${whole ? `${lira} and ` : ""}${enWords(kurus)} kuruş` : lira;
  }
  const lira = `${trWords(whole)} Türk lirası`;
  return kurus ? `${whole ? `${lira} ` : ""}${trWords(kurus)} kuruş` : lira;
}
