import { isNameText } from "./text-rules.js";

const PLACEHOLDERS = new Set(["null", "undefined", "none", "yok"]);
const MAX_LENGTH = 50;

/**
 * Resolves the optional middle_name. It never rejects a request: an invalid value is dropped and the
 * request goes on without a middle name. Returns the trimmed value to store, or null.
 */
export function resolveMiddleName(value: unknown): string | null {
  if (typeof value !== "string") return null;
  const trimmed = value.trim();
  if (trimmed === "") return null;
  // "Any letter case" includes Turkish casing, where "UNDEFINED" lower-cases to "undefıned".
  if (
    PLACEHOLDERS.has(trimmed.toLowerCase()) ||
    PLACEHOLDERS.has(trimmed.toLocaleLowerCase("tr").replace(/ı/g, "i"))
  )
    return null;
  if ([...trimmed].length > MAX_LENGTH) return null;
  if (!isNameText(trimmed) || !/\p{L}/u.test(trimmed)) return null;
  return trimmed;
}
