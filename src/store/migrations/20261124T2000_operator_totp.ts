import type { Migration } from "./migration.js";

/**
 * A second factor for console sign-in: each operator's authenticator secret, sealed with the master
 * key (null: none), the one being set up until its first code confirms it, and the last time step
 * a code was taken at (a code is taken once).
 */
const script = (bigint: string) => `
ALTER TABLE operators ADD COLUMN totp_sealed TEXT;
ALTER TABLE operators ADD COLUMN totp_pending_sealed TEXT;
ALTER TABLE operators ADD COLUMN totp_last_step ${bigint} NOT NULL DEFAULT 0;
`;

export const operatorTotp: Migration = {
  version: "20261124T2000_operator_totp",
  sqlite: script("INTEGER"),
  postgres: script("BIGINT"),
};
