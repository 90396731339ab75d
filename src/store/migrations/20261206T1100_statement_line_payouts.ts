import type { Migration } from "./migration.js";

/**
 * What a statement line did for payouts (docs/payouts.md): a debit that paid payouts, was only
 * suggested for them, names one already paid or superseded (a possible double payment), came after
 * the payout's return, is a bank fee, or fits none; a credit that is a payout's return, or is marked
 * as one and fits none. A debit's state stays `debit` and a return's `not_ours` (no deposit's), so
 * every reading of the deposits' states is as before; this column says the rest. The payment id the
 * bank carried (camt.053 EndToEndId, the feed's end_to_end_id) is kept for operators to search.
 */
const script = `
ALTER TABLE statement_lines ADD COLUMN payout_outcome TEXT CHECK (payout_outcome IN
  ('paid','suggested','double_payment','after_return','fee','unmatched','return','return_unknown'));
ALTER TABLE statement_lines ADD COLUMN end_to_end_id TEXT;
CREATE INDEX statement_lines_payout_open_idx ON statement_lines (payout_outcome, id)
  WHERE payout_outcome IN ('suggested','double_payment','after_return','return_unknown');
`;

export const statementLinePayouts: Migration = {
  version: "20261206T1100_statement_line_payouts",
  sqlite: script,
  postgres: script,
};
