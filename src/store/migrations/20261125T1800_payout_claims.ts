import type { Migration } from "./migration.js";

/**
 * Who is paying out a pending withdrawal right now (store/decisions/payout-claims.ts): an operator copying a
 * payout's IBAN into the bank's form marks it, so that a colleague working the same queue does not
 * send the same money a second time. One row per withdrawal, kept apart from `transactions` so the
 * deposit path and its indexes are untouched; a row whose withdrawal was decided means nothing
 * (the queue and the detail read marks of pending withdrawals only) and is never read again.
 */
const script = (bigint: string) => `
CREATE TABLE payout_claims (
  transaction_id ${bigint} PRIMARY KEY,
  operator TEXT NOT NULL,
  claimed_at ${bigint} NOT NULL
);
`;

export const payoutClaims: Migration = {
  version: "20261125T1800_payout_claims",
  sqlite: script("INTEGER"),
  postgres: script("BIGINT"),
};
