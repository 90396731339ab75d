import type { Migration } from "./migration.js";

/** An optional daily volume cap per payment account, and the index that sums an account's day. */
const script = (bigint: string) => `
ALTER TABLE payment_accounts ADD COLUMN daily_cap ${bigint} CHECK (daily_cap > 0);
CREATE INDEX transactions_account_day_idx ON transactions (account_id, created_at);
`;

export const dailyCaps: Migration = {
  version: "20261122T1700_daily_caps",
  sqlite: script("INTEGER"),
  postgres: script("BIGINT"),
};
