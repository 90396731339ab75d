import type { Migration } from "./migration.js";

/**
 * Operators find a deposit by its payer's name as a bank statement writes it (docs/console.md):
 * `payer_name_key` holds the name's folded words (domain/name-search.ts), written with every new
 * transaction. Rows from before are filled in by the workers after start (jobs/name-keys.ts):
 * the folding is Unicode work neither store's SQL does alike. The partial index holds only the rows
 * still without a key, so that work finds them without reading the table, and a start with none
 * left costs one index probe; new rows have a key and never enter it. The search itself has no
 * index: a word-prefix match (`LIKE '% word%'`) walked from the newest row, which a B-tree cannot
 * serve.
 */
const script = `
ALTER TABLE transactions ADD COLUMN payer_name_key TEXT;
CREATE INDEX transactions_name_keyless_idx ON transactions (id) WHERE payer_name_key IS NULL;
`;

export const payerNameKey: Migration = {
  version: "20261125T0600_payer_name_key",
  sqlite: script,
  postgres: script,
};
