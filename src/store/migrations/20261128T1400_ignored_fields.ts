import type { Migration } from "./migration.js";

/**
 * The names of a request's fields the API does not read (intake/ignored-fields.ts), kept with its
 * transaction for the operators' detail. Nullable and without a default: adding it rewrites no row
 * on either store, and instances still on the code before it write rows without it.
 */
const script = `
ALTER TABLE transactions ADD COLUMN ignored_fields TEXT;
`;

export const ignoredFields: Migration = {
  version: "20261128T1400_ignored_fields",
  sqlite: script,
  postgres: script,
};
