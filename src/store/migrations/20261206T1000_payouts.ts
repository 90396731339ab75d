import type { Migration } from "./migration.js";

/**
 * Payouts (docs/payouts.md): withdrawals paid in batches, each payment an attempt with its own
 * payment id, proven paid by the bank's statement. The rules money depends on are the database's,
 * whoever writes (the console, the CLI, the admin API, a statement import, two instances at once):
 *
 * - `payout_attempts_one_live_uq`: a withdrawal has at most one attempt that is queued, sent or
 *   paid. Two operators (or instances) batching the same withdrawal: one insert wins. A paid
 *   attempt stays in the index, so a paid withdrawal is never batched again.
 * - `payment_id` is unique: an id names one attempt for ever, so a debit naming an earlier attempt's
 *   id is seen for what it is.
 * - An attempt is made only for a pending withdrawal, for its amount, and never while an operator
 *   has marked it as being paid by hand (`payout_attempt_refused`).
 * - While an attempt is live (queued or sent), the withdrawal is decided by nobody
 *   (`payout_in_batch`): the payout's own path ends the attempt first, then decides.
 * - A payout mark (payout_claims) is refused while an attempt is live.
 * - An attempt's payment id, withdrawal, amount, payee (name and IBAN), method, batch, account and
 *   firm never change, and an ended attempt (paid, returned, failed, cancelled) does not move
 *   again.
 *
 * `payout_line_links` ties statement lines to attempts: one debit line per attempt (the line may
 * pay a whole batch), and one return line per attempt. Settings are per scope ('all', 'firm:<id>',
 * 'account:<id>'), as JSON of the keys an admin set there (payouts/settings.ts merges them).
 */
const tables = (bigint: string, serial: string) => `
CREATE TABLE payout_settings (
  scope TEXT PRIMARY KEY,
  settings TEXT NOT NULL,
  updated_by TEXT NOT NULL,
  updated_at ${bigint} NOT NULL
);
CREATE TABLE payout_batches (
  id ${serial},
  account_id ${bigint} NOT NULL REFERENCES payment_accounts(id),
  firm_id ${bigint} REFERENCES firms(id),
  stage TEXT NOT NULL CHECK (stage IN ('second_approval','batched','sent','closed','cancelled')),
  payouts INTEGER NOT NULL CHECK (payouts > 0),
  total ${bigint} NOT NULL CHECK (total > 0),
  second_reason TEXT,
  created_by TEXT NOT NULL,
  created_at ${bigint} NOT NULL,
  approved_by TEXT,
  approved_at ${bigint},
  sent_by TEXT,
  sent_at ${bigint},
  cancelled_by TEXT,
  updated_at ${bigint} NOT NULL,
  CHECK (approved_by IS NULL OR approved_by <> created_by),
  CHECK (stage NOT IN ('sent','closed') OR sent_at IS NOT NULL),
  CHECK (stage <> 'second_approval' OR second_reason IS NOT NULL)
);
CREATE INDEX payout_batches_stage_idx ON payout_batches (stage, id);
CREATE TABLE payout_attempts (
  id ${serial},
  transaction_id ${bigint} NOT NULL REFERENCES transactions(id),
  batch_id ${bigint} NOT NULL REFERENCES payout_batches(id),
  firm_id ${bigint} NOT NULL,
  account_id ${bigint} NOT NULL,
  payment_id TEXT NOT NULL UNIQUE CHECK (length(payment_id) BETWEEN 12 AND 35),
  amount ${bigint} NOT NULL CHECK (amount > 0),
  payee_name TEXT NOT NULL CHECK (payee_name <> ''),
  payee_iban TEXT NOT NULL,
  method TEXT NOT NULL CHECK (method IN ('FAST','EFT')),
  stage TEXT NOT NULL CHECK (stage IN ('second_approval','batched','sent','paid','returned','failed','cancelled')),
  reason TEXT,
  flag TEXT,
  created_by TEXT NOT NULL,
  created_at ${bigint} NOT NULL,
  sent_at ${bigint},
  ended_at ${bigint},
  updated_at ${bigint} NOT NULL
);
CREATE UNIQUE INDEX payout_attempts_one_live_uq ON payout_attempts (transaction_id)
  WHERE stage IN ('second_approval','batched','sent','paid');
CREATE INDEX payout_attempts_transaction_idx ON payout_attempts (transaction_id, id);
CREATE INDEX payout_attempts_batch_idx ON payout_attempts (batch_id, id);
CREATE INDEX payout_attempts_sent_idx ON payout_attempts (account_id, sent_at) WHERE stage = 'sent';
CREATE INDEX payout_attempts_batch_sent_idx ON payout_attempts (batch_id) WHERE stage = 'sent';
CREATE INDEX payout_attempts_flag_idx ON payout_attempts (id) WHERE flag IS NOT NULL;
CREATE TABLE payout_line_links (
  line_id ${bigint} NOT NULL REFERENCES statement_lines(id),
  attempt_id ${bigint} NOT NULL REFERENCES payout_attempts(id),
  role TEXT NOT NULL CHECK (role IN ('debit','return')),
  PRIMARY KEY (line_id, attempt_id)
);
CREATE UNIQUE INDEX payout_line_links_attempt_uq ON payout_line_links (attempt_id, role);
`;

const live = `('second_approval','batched','sent')`;
const ended = `('paid','returned','failed','cancelled')`;

const sqliteTriggers = `
CREATE TRIGGER payout_attempt_added BEFORE INSERT ON payout_attempts
BEGIN
  SELECT RAISE(ABORT, 'payout_attempt_refused')
  WHERE NOT EXISTS (SELECT 1 FROM transactions t WHERE t.id = NEW.transaction_id
      AND t.type = 'withdrawal' AND t.status = 'pending' AND t.amount = NEW.amount)
    OR EXISTS (SELECT 1 FROM payout_claims c WHERE c.transaction_id = NEW.transaction_id);
END;
CREATE TRIGGER payout_attempt_moved BEFORE UPDATE ON payout_attempts
BEGIN
  SELECT RAISE(ABORT, 'payout_attempt_fixed')
  WHERE NEW.payment_id <> OLD.payment_id OR NEW.transaction_id <> OLD.transaction_id
    OR NEW.amount <> OLD.amount OR NEW.payee_iban <> OLD.payee_iban OR NEW.payee_name <> OLD.payee_name
    OR NEW.batch_id <> OLD.batch_id OR NEW.account_id <> OLD.account_id OR NEW.firm_id <> OLD.firm_id
    OR NEW.method <> OLD.method
    OR (OLD.stage IN ${ended} AND NEW.stage <> OLD.stage);
END;
CREATE TRIGGER payout_withdrawal_decided BEFORE UPDATE OF status ON transactions
WHEN OLD.type = 'withdrawal' AND OLD.status = 'pending' AND NEW.status <> 'pending'
BEGIN
  SELECT RAISE(ABORT, 'payout_in_batch')
  WHERE EXISTS (SELECT 1 FROM payout_attempts a WHERE a.transaction_id = OLD.id AND a.stage IN ${live});
END;
CREATE TRIGGER payout_claim_added BEFORE INSERT ON payout_claims
BEGIN
  SELECT RAISE(ABORT, 'payout_in_batch')
  WHERE EXISTS (SELECT 1 FROM payout_attempts a WHERE a.transaction_id = NEW.transaction_id AND a.stage IN ${live});
END;
`;

/**
 * PostgreSQL: the attempt's trigger locks the withdrawal's row (FOR UPDATE), and a decision's
 * BEFORE UPDATE trigger runs once that row's lock is its own; each reads with a fresh snapshot, so
 * whichever commits second sees the other's row: a withdrawal decided while being batched, or
 * batched while being decided, is refused, never both.
 */
const postgresTriggers = `
CREATE FUNCTION payout_attempt_added() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM 1 FROM transactions t WHERE t.id = NEW.transaction_id
    AND t.type = 'withdrawal' AND t.status = 'pending' AND t.amount = NEW.amount FOR UPDATE;
  IF NOT FOUND OR EXISTS (SELECT 1 FROM payout_claims c WHERE c.transaction_id = NEW.transaction_id) THEN
    RAISE EXCEPTION 'payout_attempt_refused' USING ERRCODE = 'check_violation', CONSTRAINT = 'payout_attempt_refused';
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER payout_attempt_added BEFORE INSERT ON payout_attempts
  FOR EACH ROW EXECUTE FUNCTION payout_attempt_added();
CREATE FUNCTION payout_attempt_moved() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.payment_id <> OLD.payment_id OR NEW.transaction_id <> OLD.transaction_id
    OR NEW.amount <> OLD.amount OR NEW.payee_iban <> OLD.payee_iban OR NEW.payee_name <> OLD.payee_name
    OR NEW.batch_id <> OLD.batch_id OR NEW.account_id <> OLD.account_id OR NEW.firm_id <> OLD.firm_id
    OR NEW.method <> OLD.method
    OR (OLD.stage IN ${ended} AND NEW.stage <> OLD.stage) THEN
    RAISE EXCEPTION 'payout_attempt_fixed' USING ERRCODE = 'check_violation', CONSTRAINT = 'payout_attempt_fixed';
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER payout_attempt_moved BEFORE UPDATE ON payout_attempts
  FOR EACH ROW EXECUTE FUNCTION payout_attempt_moved();
CREATE FUNCTION payout_withdrawal_decided() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM payout_attempts a WHERE a.transaction_id = OLD.id AND a.stage IN ${live}) THEN
    RAISE EXCEPTION 'payout_in_batch' USING ERRCODE = 'check_violation', CONSTRAINT = 'payout_in_batch';
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER payout_withdrawal_decided BEFORE UPDATE OF status ON transactions
  FOR EACH ROW WHEN (OLD.type = 'withdrawal' AND OLD.status = 'pending' AND NEW.status <> 'pending')
  EXECUTE FUNCTION payout_withdrawal_decided();
CREATE FUNCTION payout_claim_added() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM 1 FROM transactions t WHERE t.id = NEW.transaction_id FOR UPDATE;
  IF EXISTS (SELECT 1 FROM payout_attempts a WHERE a.transaction_id = NEW.transaction_id AND a.stage IN ${live}) THEN
    RAISE EXCEPTION 'payout_in_batch' USING ERRCODE = 'check_violation', CONSTRAINT = 'payout_in_batch';
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER payout_claim_added BEFORE INSERT ON payout_claims
  FOR EACH ROW EXECUTE FUNCTION payout_claim_added();
`;

export const payouts: Migration = {
  version: "20261206T1000_payouts",
  sqlite: tables("INTEGER", "INTEGER PRIMARY KEY AUTOINCREMENT") + sqliteTriggers,
  postgres: tables("BIGINT", "BIGSERIAL PRIMARY KEY") + postgresTriggers,
};
