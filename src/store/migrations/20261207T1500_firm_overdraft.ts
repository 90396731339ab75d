import type { Migration } from "./migration.js";

/**
 * The ledger's guard on payouts (issue 48, point 6; docs/payouts.md, "The ledger's guard"):
 *
 * - `firms.overdraft`, minor units: how far below zero an admin lets the firm's balance go for its
 *   payouts; NULL (the default): not at all.
 * - The guard itself is a payout setting, `balanceGuard`, on unless set off. On a store that
 *   already holds live firms it starts off, for the service (`payout_settings`, scope `all`): the
 *   ledger began with no opening balances (issue 48, point 8), so a firm's balance there is only
 *   what was decided since, and guarding it would leave out payouts it is owed. An admin turns it
 *   on once the firms' balances in the ledger are right (`payout settings --balance-guard true`).
 * - `payout_attempts_held_idx`: what a firm's live batches not yet sent hold back, read by the
 *   guard at every batching and approval it judges; only the unsent live attempts are in it.
 */
const guardOffWhereFirmsAre = (merge: string) => `
INSERT INTO payout_settings (scope, settings, updated_by, updated_at)
SELECT 'all', '{"balanceGuard":false}', 'migration:20261207T1500', 0
WHERE EXISTS (SELECT 1 FROM firms WHERE sandbox = 0)
ON CONFLICT (scope) DO UPDATE SET settings = ${merge};
`;

export const firmOverdraft: Migration = {
  version: "20261207T1500_firm_overdraft",
  postgres: `
ALTER TABLE firms ADD COLUMN overdraft BIGINT CHECK (overdraft > 0);
${guardOffWhereFirmsAre(`(payout_settings.settings::jsonb || '{"balanceGuard":false}'::jsonb)::text`)}`,
  sqlite: `
ALTER TABLE firms ADD COLUMN overdraft INTEGER CHECK (overdraft > 0);
${guardOffWhereFirmsAre(`json_set(payout_settings.settings, '$.balanceGuard', json('false'))`)}`,
  indexes: [
    {
      name: "payout_attempts_held_idx",
      table: "payout_attempts",
      definition: "(firm_id) WHERE stage IN ('batched', 'second_approval')",
    },
  ],
};
