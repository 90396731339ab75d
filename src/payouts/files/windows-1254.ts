/**
 * Windows-1254 (Turkish), the encoding older bank upload screens read. It is Latin-1 with six
 * places given to Turkish letters and 0x80-0x9F given to typographic marks; a character it lacks is
 * written as "?", as Windows itself does, so the bank sees where something was lost.
 */

/** The six places where 1254 differs from Latin-1 in 0xA0-0xFF. */
const TURKISH: Readonly<Record<string, number>> = {
  Ğ: 0xd0,
  İ: 0xdd,
  Ş: 0xde,
  ğ: 0xf0,
  ı: 0xfd,
  ş: 0xfe,
};
/** Latin-1's letters at those places (Ð Ý Þ ð ý þ), which 1254 does not have. */
const DISPLACED = new Set([0xd0, 0xdd, 0xde, 0xf0, 0xfd, 0xfe]);

/** 0x80-0x9F: the same marks as Windows-1252 but for the unassigned 0x8E and 0x9E. */
const MARKS: Readonly<Record<string, number>> = {
  "€": 0x80,
  "‚": 0x82,
  ƒ: 0x83,
  "„": 0x84,
  "…": 0x85,
  "†": 0x86,
  "‡": 0x87,
  ˆ: 0x88,
  "‰": 0x89,
  Š: 0x8a,
  "‹": 0x8b,
  Œ: 0x8c,
  "‘": 0x91,
  "’": 0x92,
  "“": 0x93,
  "”": 0x94,
  "•": 0x95,
  "–": 0x96,
  "—": 0x97,
  "˜": 0x98,
  "™": 0x99,
  š: 0x9a,
  "›": 0x9b,
  œ: 0x9c,
  Ÿ: 0x9f,
};

const UNMAPPABLE = 0x3f; // "?"

function byteOf(char: string): number {
  const code = char.codePointAt(0) ?? UNMAPPABLE;
  if (code < 0x80) return code;
  const special = TURKISH[char] ?? MARKS[char];
  if (special !== undefined) return special;
  if (code >= 0xa0 && code <= 0xff && !DISPLACED.has(code)) return code;
  return UNMAPPABLE;
}

/** Whether 1254 has the character (one code point); else it would be written as "?". */
export function inWindows1254(char: string): boolean {
  return char === "?" || byteOf(char) !== UNMAPPABLE;
}

/** The text in Windows-1254, one byte per code point (composed first, so "s" + cedilla is "ş"). */
export function encodeWindows1254(text: string): Buffer {
  const chars = Array.from(text.normalize("NFC"));
  const bytes = Buffer.allocUnsafe(chars.length);
  chars.forEach((char, i) => {
    bytes[i] = byteOf(char);
  });
  return bytes;
}
