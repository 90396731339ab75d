import type { Migration } from "./migration.js";

/**
 * A payer's name found without reading the table (docs/console.md, Name search). On SQLite, a
 * full-text index (FTS5) over `payer_name_key`, kept by triggers, so that every writer of a key
 * (the deposit path, the workers that fill old rows' keys) keeps it without knowing of it; a word
 * typed is a prefix query on its tokens (`"ozt"*`), which are the key's words exactly (both are
 * letters and digits, folded: domain/name-search.ts; the tokenizer is told that spacing marks are
 * letters too, as its Unicode 6.1 tables call some letters of today's, which would otherwise split a
 * word and fail the query). `detail=none` keeps it small: a search asks
 * whether a row holds a word, never where. The rebuild indexes the rows already there (SQLite
 * holds writes meanwhile: docs/operations.md gives its time).
 *
 * On PostgreSQL, a trigram index (the pg_trgm extension, where it can be installed) serves the
 * searches' `LIKE '% word%'` as they are. `fastupdate = off`: each insert updates the index itself,
 * where the default would gather entries in a pending list and make one deposit now and then pay
 * for merging megabytes of them.
 */
const sqlite = `
CREATE VIRTUAL TABLE transaction_names USING fts5(
  payer_name_key, content='transactions', content_rowid='id', detail='none', prefix='2 3',
  tokenize="unicode61 categories 'L* N* Co Mc'"
);
CREATE TRIGGER transaction_names_insert AFTER INSERT ON transactions
WHEN new.payer_name_key IS NOT NULL BEGIN
  INSERT INTO transaction_names (rowid, payer_name_key) VALUES (new.id, new.payer_name_key);
END;
CREATE TRIGGER transaction_names_update AFTER UPDATE OF payer_name_key ON transactions BEGIN
  INSERT INTO transaction_names (transaction_names, rowid, payer_name_key)
    SELECT 'delete', old.id, old.payer_name_key WHERE old.payer_name_key IS NOT NULL;
  INSERT INTO transaction_names (rowid, payer_name_key)
    SELECT new.id, new.payer_name_key WHERE new.payer_name_key IS NOT NULL;
END;
CREATE TRIGGER transaction_names_delete AFTER DELETE ON transactions
WHEN old.payer_name_key IS NOT NULL BEGIN
  INSERT INTO transaction_names (transaction_names, rowid, payer_name_key)
    VALUES ('delete', old.id, old.payer_name_key);
END;
INSERT INTO transaction_names (transaction_names) VALUES ('rebuild');
`;

export const nameSearch: Migration = {
  version: "20261128T1200_name_search",
  sqlite,
  postgres: "",
  indexes: [
    {
      name: "transactions_name_trgm_idx",
      table: "transactions",
      extensions: ["pg_trgm"],
      definition: "USING gin (payer_name_key {pg_trgm}.gin_trgm_ops) WITH (fastupdate = off)",
    },
  ],
};
