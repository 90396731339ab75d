import { z } from "zod";
import { parseAmount } from "../domain/money.js";
import { MAX_NAME_SEARCH_WORDS, nameWords } from "../domain/name-search.js";
import { hasInvalidCharacters } from "../domain/text-rules.js";

/**
 * Text an operator types must be Unicode text without control characters: PostgreSQL text cannot
 * hold NUL, and its driver sends a lone surrogate as U+FFFD (stored other than sent). One message.
 */
export const noControl = (v: string) => !hasInvalidCharacters(v);
export const NO_CONTROL = { message: "must not contain control characters" };
/** Free text an operator types or filters by. */
export const plainText = (max: number) => z.string().max(max).refine(noControl, NO_CONTROL);

/**
 * A record id as it appears in a path or query: decimal digits only (not 0x1, 1e0, " 1" or 1.0).
 * Up to 16 digits, since transactions and callbacks have BIGINT ids; a firm id past the INTEGER
 * columns' range is simply unknown (store/schema.ts MAX_INTEGER_ID), never a database error.
 */
const ID_TEXT = /^[1-9][0-9]{0,15}$/;
export function recordIdOf(text: string): number | undefined {
  if (!ID_TEXT.test(text)) return undefined;
  const id = Number(text);
  return Number.isSafeInteger(id) ? id : undefined;
}
export const idText = z.string().transform((v, ctx) => {
  const id = recordIdOf(v);
  if (id === undefined) {
    ctx.addIssue({ code: "custom", message: "must be a whole number above 0" });
    return z.NEVER;
  }
  return id;
});

export const idParam = z.object({ id: idText });

/** A page size in a query: 1 to 1000, digits only. */
export const limitText = idText.pipe(z.number().max(1000));

/** An amount as operators type it: a decimal string, read as minor units. */
export const amountText = z.string().transform((v, ctx) => {
  const parsed = parseAmount(v);
  if (!parsed.ok) {
    ctx.addIssue({
      code: "custom",
      message: "must be a decimal amount greater than 0 with at most 2 decimals",
    });
    return z.NEVER;
  }
  return parsed.minor;
});

/**
 * A payer's name to search for, as a bank statement or an operator writes it ("SUKRU OZTURK"): its
 * folded words (domain/name-search.ts), at least one and at most a few.
 */
export const nameSearchText = plainText(100).transform((v, ctx) => {
  const words = nameWords(v);
  if (words.length === 0 || words.length > MAX_NAME_SEARCH_WORDS) {
    ctx.addIssue({ code: "custom", message: `must have 1 to ${MAX_NAME_SEARCH_WORDS} words` });
    return z.NEVER;
  }
  return words;
});

/** An operator's note on a decision: trimmed, at most 500 characters. */
export const note = z.string().trim().max(500).refine(noControl, NO_CONTROL);
