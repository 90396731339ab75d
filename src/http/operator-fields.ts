import { z } from "zod";
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
