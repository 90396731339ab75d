/**
 * The console's one way to say things in its two languages, Turkish (the default) and English. A
 * text is declared once, as a key with both its words (`approve: { tr: "Onayla", en: "Approve" }`)
 * in a table of words (`satisfies WordTable`), so that a key without one of its languages does not
 * compile; and it is read with `wordsIn`, in every table alike. The main table is i18n.ts's (read
 * with `t(key)`); the audit log's, a detail's recorded words and the refusals' are tables of their
 * own beside the code that picks their keys. test/unit/translations.test.ts holds every table to
 * both languages.
 */

export type Lang = "tr" | "en";

/** One text in both languages. */
export type Words = { readonly tr: string; readonly en: string };

/** Texts by key, each in both languages. */
export type WordTable<K extends string = string> = { readonly [key in K]: Words };

/**
 * A key's words in `lang`; undefined for a key the table does not hold, which is how a value from
 * the server this console has no words for (a newer action, code or reason) is told apart. Own
 * keys only: "toString" is no key.
 */
export function wordsIn<K extends string>(table: WordTable<K>, key: string, lang: Lang): string | undefined {
  return Object.hasOwn(table, key) ? table[key as K][lang] : undefined;
}

/** Fills a sentence's `{name}` places; a place without a value stays as written. */
export function fill(text: string, values: Record<string, string | number>): string {
  return text.replace(/\{(\w+)\}/g, (all, name: string) => (name in values ? String(values[name]) : all));
}
