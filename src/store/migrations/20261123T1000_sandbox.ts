import type { Migration } from "./migration.js";

/**
 * Test firms (sandbox) and the one account their deposits are given: a sandbox firm's deposits
 * never touch the live pool, and live routing never offers the sandbox account.
 */
const script = `
ALTER TABLE firms ADD COLUMN sandbox INTEGER NOT NULL DEFAULT 0 CHECK (sandbox IN (0, 1));
ALTER TABLE payment_accounts ADD COLUMN sandbox INTEGER NOT NULL DEFAULT 0 CHECK (sandbox IN (0, 1));
INSERT INTO payment_accounts (bank_name, holder_name, iban, min_amount, max_amount, active, sandbox, created_at, updated_at)
VALUES ('Sandbox Bank', 'payintake sandbox', 'TR809999900000000000000001', NULL, NULL, 1, 1, 0, 0);
`;

export const sandbox: Migration = {
  version: "20261123T1000_sandbox",
  sqlite: script,
  postgres: script,
};
