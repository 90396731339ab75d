import type { Migration } from "./migration.js";

/**
 * Bank statements (issue 34, docs/adr/0012-bank-statements.md): each statement read, and every
 * entry of the payment accounts' statements as one line, however often and by whichever way it
 * arrives. What the database holds for good:
 * - the same entry is one line: (account, key) is unique, the key being the bank's reference or
 *   the entry's content (reconciliation/statement.ts, lineKey);
 * - a line settles at most one transaction (one column), and a transaction is settled by at most
 *   one line (a unique index on it);
 * - a debit settles nothing (a check);
 * - a line's state is one of the outcomes the matching knows.
 * Per payment account, the live feed's secret (sealed with the master key, for that account only),
 * how long it may stay silent before operators are warned, and when it last spoke.
 * Per firm, whether lines approve its deposits by themselves, and whether the amount and the full
 * name may do it without the payment code (both on, for new and existing firms); and whether the
 * firm's direct-mode answers and queries carry the payment code (off: the contract's answer stays
 * as it is, byte for byte, unless the firm asks).
 */
const STATES = "'approved','settled','suggested','unmatched','after_cancellation','debit','not_ours'";

const table = (id: string) => `
CREATE TABLE statement_imports (
  id ${id},
  account_id BIGINT NOT NULL REFERENCES payment_accounts(id),
  format TEXT NOT NULL,
  sequence TEXT,
  opening_amount BIGINT,
  closing_amount BIGINT,
  doubts TEXT NOT NULL DEFAULT '',
  lines_read INTEGER NOT NULL,
  imported_by TEXT NOT NULL,
  created_at BIGINT NOT NULL
);
CREATE INDEX statement_imports_account_idx ON statement_imports (account_id, id);
CREATE TABLE statement_lines (
  id ${id},
  account_id BIGINT NOT NULL REFERENCES payment_accounts(id),
  line_key TEXT NOT NULL,
  import_id BIGINT REFERENCES statement_imports(id),
  source TEXT NOT NULL CHECK (source IN ('file','feed','hand')),
  booked_at BIGINT NOT NULL,
  date_only INTEGER NOT NULL CHECK (date_only IN (0, 1)),
  amount BIGINT NOT NULL CHECK (amount >= 0),
  direction TEXT NOT NULL CHECK (direction IN ('credit','debit')),
  currency TEXT NOT NULL,
  sender_name TEXT,
  sender_iban TEXT,
  description TEXT NOT NULL,
  bank_ref TEXT,
  state TEXT NOT NULL CHECK (state IN (${STATES})),
  transaction_id BIGINT REFERENCES transactions(id),
  evidence TEXT NOT NULL DEFAULT '{}',
  created_at BIGINT NOT NULL,
  decided_at BIGINT,
  decided_by TEXT,
  CHECK (direction = 'credit' OR transaction_id IS NULL),
  UNIQUE (account_id, line_key)
);
CREATE UNIQUE INDEX statement_lines_transaction_uq ON statement_lines (transaction_id) WHERE transaction_id IS NOT NULL;
CREATE INDEX statement_lines_open_idx ON statement_lines (state, id) WHERE state IN ('suggested','unmatched','after_cancellation');
CREATE INDEX statement_lines_account_idx ON statement_lines (account_id, booked_at);
CREATE INDEX statement_lines_decided_idx ON statement_lines (decided_at) WHERE decided_at IS NOT NULL;
ALTER TABLE firms ADD COLUMN reconcile_auto INTEGER NOT NULL DEFAULT 1 CHECK (reconcile_auto IN (0, 1));
ALTER TABLE firms ADD COLUMN reconcile_by_name INTEGER NOT NULL DEFAULT 1 CHECK (reconcile_by_name IN (0, 1));
ALTER TABLE payment_accounts ADD COLUMN feed_secret_sealed TEXT;
ALTER TABLE payment_accounts ADD COLUMN feed_silence_minutes INTEGER CHECK (feed_silence_minutes > 0);
ALTER TABLE payment_accounts ADD COLUMN feed_last_at BIGINT;
ALTER TABLE firms ADD COLUMN answer_payment_code INTEGER NOT NULL DEFAULT 0 CHECK (answer_payment_code IN (0, 1));
`;

export const statementLines: Migration = {
  version: "20261128T1300_statement_lines",
  sqlite: table("INTEGER PRIMARY KEY AUTOINCREMENT"),
  postgres: table("BIGSERIAL PRIMARY KEY"),
};
