import type { Migration } from "./index.js";

/**
 * Withdrawals carry a method like deposits (the Transaction view and the callback body list it for
 * every transaction). Those written before had none; fast is what the API gives when none is sent.
 */
const script = `
UPDATE transactions SET method = 'fast' WHERE method IS NULL;
`;

export const withdrawalMethod: Migration = {
  version: "20261124T1400_withdrawal_method",
  sqlite: script,
  postgres: script,
};
