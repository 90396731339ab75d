/**
 * Fields a merchant sent that the endpoint does not read. The contract accepts and ignores them, so
 * a misspelt optional field (`returnUrl` for `return_url`) would be lost without a word: their names
 * are kept with the transaction for the operators, and a test firm is told them in a header
 * (docs/integration-guide.md, "Fields the API does not know"). Names only, never values: a value
 * may be anything the merchant meant to keep to itself.
 */
import { withoutControlCharacters, withoutLoneSurrogates } from "../domain/text-rules.js";

/** The most names kept of one request. */
export const IGNORED_FIELDS_MAX = 20;
/** Code points kept of each name: a key of a megabyte is still named, by its start. */
export const IGNORED_FIELD_NAME_MAX = 64;
export const IGNORED_FIELDS_HEADER = "x-ignored-fields";

/**
 * The top-level keys of `body` that are not in `known`, in the order sent; null when there are none
 * (every well-formed request: no array is made for it). A JSON.parse result has only its own keys,
 * and its prototype no enumerable ones, so `for…in` visits exactly what was sent, without copying
 * the keys into an array first as Object.keys would.
 */
export function ignoredFieldsOf(body: Record<string, unknown>, known: ReadonlySet<string>): string[] | null {
  let names: string[] | null = null;
  for (const key in body) {
    if (known.has(key)) continue;
    const name = storableName(key);
    if (name === "") continue;
    names ??= [];
    names.push(name);
    if (names.length === IGNORED_FIELDS_MAX) break;
  }
  return names;
}

/**
 * A name as it can be stored and shown: without control characters (PostgreSQL text holds no NUL)
 * and lone surrogates (not text), and at most IGNORED_FIELD_NAME_MAX code points.
 */
function storableName(key: string): string {
  const clean = withoutLoneSurrogates(withoutControlCharacters(key));
  if (clean.length <= IGNORED_FIELD_NAME_MAX) return clean;
  return Array.from(clean).slice(0, IGNORED_FIELD_NAME_MAX).join("");
}

/**
 * The header's value: the names comma-separated, each percent-encoded as a URI component, so that
 * a name with a comma, a space or a letter outside ASCII (which an HTTP header cannot carry as
 * such) is still one readable item. `returnUrl, nationalid` reads as sent.
 */
export function ignoredFieldsHeader(names: readonly string[]): string {
  return names.map((name) => encodeURIComponent(name)).join(", ");
}
