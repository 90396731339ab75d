import type { Migration } from "./migration.js";

/**
 * A refund paid out (docs/ledger.md, "A refund paid"): the bank's debit that sends a payer back the
 * money of a credit marked not ours names that credit. `statement_lines.refund_of` on the debit:
 * the credit line it refunds; unique, so one credit is refunded once, by one debit. The debit's
 * `held_posting_id` is the refund's posting, so the bank check counts it as the ledger's. The credits
 * still owed back, by amount: what a free debit's detail offers (store/statements/refund-lines.ts,
 * `refundCandidates`) is read from them alone, not from every line the bank ever sent.
 */
const script = (bigint: string) => `
ALTER TABLE statement_lines ADD COLUMN refund_of ${bigint} REFERENCES statement_lines(id);
CREATE UNIQUE INDEX statement_lines_refund_of_idx ON statement_lines (refund_of) WHERE refund_of IS NOT NULL;
CREATE INDEX statement_lines_refund_due_idx ON statement_lines (amount)
  WHERE direction = 'credit' AND state = 'not_ours' AND held_posting_id IS NOT NULL;
`;

export const refundLines: Migration = {
  version: "20261210T1000_refund_lines",
  sqlite: script("INTEGER"),
  postgres: script("BIGINT"),
};
