import type { Migration } from "./migration.js";

/**
 * The rotation between payment accounts moved into memory (routing/account-pool.ts): writing it to
 * the account row on every deposit made a handful of rows the hottest in the database.
 */
const script = `
DROP INDEX payment_accounts_active_idx;
ALTER TABLE payment_accounts DROP COLUMN last_assigned_at;
CREATE INDEX payment_accounts_active_idx ON payment_accounts (active);
`;

export const rotationInMemory: Migration = {
  version: "20261122T1400_rotation_in_memory",
  sqlite: script,
  postgres: script,
};
