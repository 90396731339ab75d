import type { Migration } from "./index.js";

/**
 * Operators find a deposit by its payer's name as a bank statement writes it (docs/console.md):
 * `payer_name_key` holds the name's folded words (domain/name-search.ts), written with every new
 * transaction. Rows from before are filled in at start (lifecycle/name-keys.ts): the folding is
 * Unicode work neither store's SQL does alike. No index: a search by name is a word-prefix match
 * (`LIKE '% word%'`) walked from the newest row, which a B-tree cannot serve.
 */
const script = "ALTER TABLE transactions ADD COLUMN payer_name_key TEXT;";

export const payerNameKey: Migration = {
  version: "20261125T0600_payer_name_key",
  sqlite: script,
  postgres: script,
};
