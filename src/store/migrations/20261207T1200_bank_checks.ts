import type { Migration } from "./migration.js";

/**
 * The bank's check of the ledger (issue 48, point 5; docs/ledger.md, "The bank's check"): one row
 * per statement imported (or feed batch carrying a balance), the bank's closing balance against the
 * cash the ledger expected at the statement's end. A statement without a closing balance is
 * checked too, and says so (`problem`): a missing figure is never "balanced". The database keeps
 * the arithmetic: a difference is the closing less the expected, and only a row with a closing has one.
 * Rows are never changed: a later import is a later check.
 *
 * `statement_lines.held_posting_id`: the posting that took a line's money into the ledger when the
 * line was written (a credit for nobody yet, held in suspense; a bank's fee), one posting per
 * written batch; null for a line whose money an approval holds, or none does.
 */
const table = (serial: string, bigint: string) => `
CREATE TABLE ledger_bank_checks (
  id ${serial},
  iban TEXT NOT NULL,
  account_id ${bigint} NOT NULL REFERENCES payment_accounts(id),
  import_id ${bigint} REFERENCES statement_imports(id),
  source TEXT NOT NULL CHECK (source IN ('file', 'feed')),
  at ${bigint} NOT NULL,
  bank_closing ${bigint},
  expected ${bigint} NOT NULL,
  difference ${bigint},
  problem TEXT CHECK (problem IN ('no_closing_balance')),
  unposted_sum ${bigint} NOT NULL,
  unbanked_sum ${bigint} NOT NULL,
  created_at ${bigint} NOT NULL,
  CONSTRAINT ledger_bank_check_closing CHECK ((bank_closing IS NULL) = (problem IS NOT NULL)),
  CONSTRAINT ledger_bank_check_difference CHECK (
    (bank_closing IS NULL AND difference IS NULL) OR difference = bank_closing - expected)
);
CREATE INDEX ledger_bank_checks_iban_idx ON ledger_bank_checks (iban, at, id);
ALTER TABLE statement_lines ADD COLUMN held_posting_id ${bigint};
`;

export const bankChecks: Migration = {
  version: "20261207T1200_bank_checks",
  sqlite: `${table("INTEGER PRIMARY KEY AUTOINCREMENT", "INTEGER")}
CREATE TRIGGER ledger_bank_check_kept BEFORE UPDATE ON ledger_bank_checks
BEGIN SELECT RAISE(ABORT, 'ledger_immutable: a bank check is never changed'); END;
`,
  postgres: `${table("BIGSERIAL PRIMARY KEY", "BIGINT")}
CREATE FUNCTION ledger_bank_check_kept() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN RAISE EXCEPTION 'ledger_immutable: a bank check is never changed' USING ERRCODE = 'check_violation'; END $$;
CREATE TRIGGER ledger_bank_check_kept BEFORE UPDATE ON ledger_bank_checks
  FOR EACH ROW EXECUTE FUNCTION ledger_bank_check_kept();
`,
};
