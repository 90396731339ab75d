import type { Migration } from "./migration.js";

/**
 * The full-text index's words, one row each (`transaction_name_terms`, SQLite's fts5vocab over
 * `transaction_names`; no storage of its own): a word typed in full or nearly is looked up here and
 * searched as the few whole words it begins (store/transactions/name-terms.ts). FTS5 gathers every match of
 * a prefix of four letters or more into memory before it hands over the first: tens of
 * milliseconds for a common name on a large store, whatever the search's dates or page.
 */
export const nameTerms: Migration = {
  version: "20261202T1100_name_terms",
  sqlite: "CREATE VIRTUAL TABLE transaction_name_terms USING fts5vocab(transaction_names, 'row');",
  postgres: "",
};
