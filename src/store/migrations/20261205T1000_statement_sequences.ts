import type { Migration } from "./migration.js";

/**
 * The numbers of an account's latest statements, read at every import to find gaps, come from an
 * index of the imports that have a number: rows without one (empty statements, however many a file
 * or a run of files left) are never walked past to find them.
 */
export const statementSequences: Migration = {
  version: "20261205T1000_statement_sequences",
  sqlite: "",
  postgres: "",
  indexes: [
    {
      name: "statement_imports_sequence_idx",
      table: "statement_imports",
      definition: "(account_id, id) WHERE sequence IS NOT NULL",
    },
  ],
};
