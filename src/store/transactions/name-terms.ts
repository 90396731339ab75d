import { type Kysely, sql } from "kysely";
import type { Database } from "../schema.js";

/**
 * The words a prefix of this length or more is searched as: shorter ones are served by the
 * full-text index's own prefix entries (`prefix='2 3'`, migration 20261128T1200_name_search),
 * which FTS5 reads as it goes; longer ones FTS5 would gather whole into memory first.
 */
const SPELLED_FROM = 4;
/** More words than this begin with the prefix: searched as a prefix after all. */
const MOST_TERMS = 50;
/** Above every character: the end of the words that begin with a prefix, in SQLite's text order. */
const LAST_CHARACTER = "\u{10FFFF}";

/**
 * The FTS5 query (SQLite) for folded words (domain/name-search.ts) each of which begins a word of
 * the name: a word of four letters or more as the indexed words it begins (`("ayse" OR "aysel")`),
 * found in the index's vocabulary (migration 20261202T1100_name_terms); a shorter one, or one that
 * begins too many, as a prefix (`"ays"*`). Both ask the same; the first is read lazily, so a
 * search reads no more of a common name than its page and dates need.
 */
export async function nameMatch(db: Kysely<Database>, words: readonly string[]): Promise<string> {
  const parts = await Promise.all(words.map((word) => wordMatch(db, word)));
  return parts.join(" AND ");
}

async function wordMatch(db: Kysely<Database>, word: string): Promise<string> {
  const prefix = `${quoted(word)}*`;
  if ([...word].length < SPELLED_FROM) return prefix;
  const terms = await sql<{ term: string }>`SELECT term FROM transaction_name_terms
    WHERE term >= ${word} AND term < ${word + LAST_CHARACTER} LIMIT ${MOST_TERMS + 1}`.execute(db);
  const found = terms.rows.map((r) => r.term).filter((t) => t.startsWith(word));
  if (found.length === 0 || found.length > MOST_TERMS) return prefix;
  return `(${found.map(quoted).join(" OR ")})`;
}

/** A string in FTS5's query language: words are letters and digits, but a quote is doubled anyway. */
const quoted = (text: string) => `"${text.replaceAll('"', '""')}"`;
