import type { Migration } from "./migration.js";

/**
 * Per firm, how many deposits it may have pending at once and how much they may add up to (issue
 * 36, docs/adr/0013-firm-pending-bounds.md): the shared accounts' daily caps count every firm's
 * pending deposits, so without a bound one firm can fill them and leave every other firm without an
 * account. Both default to a figure a normal firm never reaches (1,000 deposits, 2,000,000.00 TL),
 * for existing firms as for new ones; NULL leaves the firm unbounded. `max_cap_share` is the most
 * of each capped account's day (percent) the firm's deposits may take (store/routing/cap-holds.ts judges it
 * with the cap); NULL, the default: the whole cap.
 *
 * `firm_pending` holds each firm's pending deposits (count and amount), kept by triggers on
 * `transactions`, so every writer (intake, decisions, auto-cancel, statement lines) keeps it without
 * knowing of it. The insert's trigger refuses a deposit that takes its firm past a bound, with the
 * CHECK violation's code and the constraint name `firm_pending_bound` (store/engine/errors.ts): the
 * counter row is updated in the insert's own statement, so two deposits of one firm at its last
 * place wait on that row and only one passes. On PostgreSQL the insert's trigger runs once per
 * statement over all its rows (a batch of deposits updates each firm's row once); updates and
 * deletes count row by row, and only when a pending deposit leaves or enters the pending state.
 * The triggers are made before the counts are taken: on PostgreSQL making them locks the table
 * against writes until the migration commits, so no deposit is written between the count and them.
 * `bound_noted_at` is when an operator was last told the firm reached a bound (its audit entry).
 */
const postgres = `
ALTER TABLE firms ADD COLUMN max_pending_count INTEGER DEFAULT 1000 CHECK (max_pending_count > 0);
ALTER TABLE firms ADD COLUMN max_pending_amount BIGINT DEFAULT 200000000 CHECK (max_pending_amount > 0);
ALTER TABLE firms ADD COLUMN max_cap_share INTEGER CHECK (max_cap_share BETWEEN 1 AND 100);
CREATE TABLE firm_pending (
  firm_id INTEGER PRIMARY KEY REFERENCES firms(id),
  deposits BIGINT NOT NULL,
  amount BIGINT NOT NULL,
  bound_noted_at BIGINT
);
CREATE FUNCTION firm_pending_added() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  over_firm INTEGER;
BEGIN
  WITH counted AS (
    INSERT INTO firm_pending AS p (firm_id, deposits, amount)
    SELECT a.firm_id, count(*), sum(a.amount) FROM added a
    WHERE a.type = 'deposit' AND a.status = 'pending'
    GROUP BY a.firm_id ORDER BY a.firm_id
    ON CONFLICT (firm_id) DO UPDATE
      SET deposits = p.deposits + EXCLUDED.deposits, amount = p.amount + EXCLUDED.amount
    RETURNING p.firm_id, p.deposits, p.amount)
  SELECT c.firm_id INTO over_firm FROM counted c JOIN firms f ON f.id = c.firm_id
  WHERE c.deposits > f.max_pending_count OR c.amount > f.max_pending_amount
  LIMIT 1;
  IF over_firm IS NOT NULL THEN
    RAISE EXCEPTION 'firm % is at its bound of pending deposits', over_firm
      USING ERRCODE = 'check_violation', CONSTRAINT = 'firm_pending_bound';
  END IF;
  RETURN NULL;
END $$;
CREATE FUNCTION firm_pending_moved() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' AND OLD.type = 'deposit' AND OLD.status = 'pending' THEN
    UPDATE firm_pending SET deposits = deposits - 1, amount = amount - OLD.amount
    WHERE firm_id = OLD.firm_id;
  END IF;
  IF TG_OP = 'UPDATE' AND NEW.type = 'deposit' AND NEW.status = 'pending' THEN
    INSERT INTO firm_pending AS p (firm_id, deposits, amount) VALUES (NEW.firm_id, 1, NEW.amount)
    ON CONFLICT (firm_id) DO UPDATE SET deposits = p.deposits + 1, amount = p.amount + EXCLUDED.amount;
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER firm_pending_insert AFTER INSERT ON transactions
  REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION firm_pending_added();
CREATE TRIGGER firm_pending_update AFTER UPDATE OF status, amount, type, firm_id ON transactions
  FOR EACH ROW
  WHEN ((OLD.status = 'pending' OR NEW.status = 'pending')
    AND (OLD.status, OLD.amount, OLD.type, OLD.firm_id) IS DISTINCT FROM (NEW.status, NEW.amount, NEW.type, NEW.firm_id))
  EXECUTE FUNCTION firm_pending_moved();
CREATE TRIGGER firm_pending_delete AFTER DELETE ON transactions
  FOR EACH ROW WHEN (OLD.type = 'deposit' AND OLD.status = 'pending')
  EXECUTE FUNCTION firm_pending_moved();
INSERT INTO firm_pending (firm_id, deposits, amount)
SELECT firm_id, count(*), sum(amount) FROM transactions
WHERE type = 'deposit' AND status = 'pending' GROUP BY firm_id;
`;

const sqlite = `
ALTER TABLE firms ADD COLUMN max_pending_count INTEGER DEFAULT 1000 CHECK (max_pending_count > 0);
ALTER TABLE firms ADD COLUMN max_pending_amount INTEGER DEFAULT 200000000 CHECK (max_pending_amount > 0);
ALTER TABLE firms ADD COLUMN max_cap_share INTEGER CHECK (max_cap_share BETWEEN 1 AND 100);
CREATE TABLE firm_pending (
  firm_id INTEGER PRIMARY KEY REFERENCES firms(id),
  deposits INTEGER NOT NULL,
  amount INTEGER NOT NULL,
  bound_noted_at INTEGER
);
CREATE TRIGGER firm_pending_insert AFTER INSERT ON transactions
WHEN new.type = 'deposit' AND new.status = 'pending' BEGIN
  INSERT INTO firm_pending (firm_id, deposits, amount) VALUES (new.firm_id, 1, new.amount)
    ON CONFLICT (firm_id) DO UPDATE SET deposits = deposits + 1, amount = amount + excluded.amount;
  SELECT RAISE(ABORT, 'firm_pending_bound') FROM firm_pending p JOIN firms f ON f.id = p.firm_id
  WHERE p.firm_id = new.firm_id AND (p.deposits > f.max_pending_count OR p.amount > f.max_pending_amount);
END;
CREATE TRIGGER firm_pending_leave AFTER UPDATE OF status, amount, type, firm_id ON transactions
WHEN old.type = 'deposit' AND old.status = 'pending' BEGIN
  UPDATE firm_pending SET deposits = deposits - 1, amount = amount - old.amount WHERE firm_id = old.firm_id;
END;
CREATE TRIGGER firm_pending_enter AFTER UPDATE OF status, amount, type, firm_id ON transactions
WHEN new.type = 'deposit' AND new.status = 'pending' BEGIN
  INSERT INTO firm_pending (firm_id, deposits, amount) VALUES (new.firm_id, 1, new.amount)
    ON CONFLICT (firm_id) DO UPDATE SET deposits = deposits + 1, amount = amount + excluded.amount;
END;
CREATE TRIGGER firm_pending_delete AFTER DELETE ON transactions
WHEN old.type = 'deposit' AND old.status = 'pending' BEGIN
  UPDATE firm_pending SET deposits = deposits - 1, amount = amount - old.amount WHERE firm_id = old.firm_id;
END;
INSERT INTO firm_pending (firm_id, deposits, amount)
SELECT firm_id, count(*), sum(amount) FROM transactions
WHERE type = 'deposit' AND status = 'pending' GROUP BY firm_id;
`;

export const firmPendingBounds: Migration = {
  version: "20261129T1000_firm_pending_bounds",
  sqlite,
  postgres,
};
