import type { Migration } from "./migration.js";

/**
 * What each firm's deposits took of each payment account on each of Türkiye's days
 * (`account_day_use`), kept by triggers on `transactions`, so that a deposit routed to a capped
 * account reads a few rows (store/routing/cap-holds.ts) instead of every deposit of the account's day: on a
 * busy day that sum read thousands of rows twice per deposit, and the deposit path got slower
 * through the day (docs/BENCHMARKS.md, Volume). A deposit counts while it is not rejected, as the
 * caps always counted; the day is its creation's, `created_at - (created_at + 3 h) mod 24 h`
 * (domain/turkey-time.ts, startOfTurkeyDay). An update counts only when what it changes moves the
 * figure (a rejection, another amount approved): an approval of a pending deposit writes nothing
 * here. The triggers are made before the figures are taken: on PostgreSQL making them locks the
 * table against writes until the migration commits, so no deposit is written between the two. Only
 * deposits since yesterday's start are summed then (by the creation time's index): the caps ask
 * for today alone, and a sum over years would hold the writes for as long as it read.
 */
const DAY = "86400000";
const OFFSET = "10800000";
const dayOf = (row: string) => `${row}.created_at - ((${row}.created_at + ${OFFSET}) % ${DAY})`;
const counts = (row: string) =>
  `${row}.type = 'deposit' AND ${row}.status <> 'rejected' AND ${row}.account_id IS NOT NULL`;
/** Whether an update leaves the row's share where it was. */
const sameShare = `(${counts("new")}) AND new.amount = old.amount AND new.firm_id = old.firm_id
    AND new.account_id = old.account_id AND ${dayOf("new")} = ${dayOf("old")}`;
const backfill = (now: string) => `
INSERT INTO account_day_use (account_id, day_start, firm_id, amount)
SELECT t.account_id, ${dayOf("t")}, t.firm_id, sum(t.amount) FROM transactions t
WHERE ${counts("t")}
  AND t.created_at >= ${now} - ((${now} + ${OFFSET}) % ${DAY}) - ${DAY}
GROUP BY 1, 2, 3;`;
const table = (bigint: string) => `
CREATE TABLE account_day_use (
  account_id ${bigint} NOT NULL,
  day_start ${bigint} NOT NULL,
  firm_id ${bigint} NOT NULL,
  amount ${bigint} NOT NULL,
  PRIMARY KEY (account_id, day_start, firm_id)
);`;

const postgres = `${table("BIGINT")}
CREATE FUNCTION account_day_use_added() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO account_day_use AS u (account_id, day_start, firm_id, amount)
  SELECT a.account_id, ${dayOf("a")}, a.firm_id, sum(a.amount) FROM added a
  WHERE ${counts("a")}
  GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
  ON CONFLICT (account_id, day_start, firm_id) DO UPDATE SET amount = u.amount + EXCLUDED.amount;
  RETURN NULL;
END $$;
CREATE FUNCTION account_day_use_moved() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' AND ${counts("OLD")} THEN
    UPDATE account_day_use SET amount = amount - OLD.amount
    WHERE account_id = OLD.account_id AND day_start = ${dayOf("OLD")} AND firm_id = OLD.firm_id;
  END IF;
  IF TG_OP = 'UPDATE' AND ${counts("NEW")} THEN
    INSERT INTO account_day_use AS u (account_id, day_start, firm_id, amount)
    VALUES (NEW.account_id, ${dayOf("NEW")}, NEW.firm_id, NEW.amount)
    ON CONFLICT (account_id, day_start, firm_id) DO UPDATE SET amount = u.amount + EXCLUDED.amount;
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER account_day_use_insert AFTER INSERT ON transactions
  REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION account_day_use_added();
CREATE TRIGGER account_day_use_update AFTER UPDATE OF type, status, amount, firm_id, account_id, created_at
  ON transactions FOR EACH ROW
  WHEN ((${counts("OLD")} OR ${counts("NEW")}) AND NOT (${counts("OLD")} AND ${sameShare}))
  EXECUTE FUNCTION account_day_use_moved();
CREATE TRIGGER account_day_use_delete AFTER DELETE ON transactions
  FOR EACH ROW WHEN (${counts("OLD")}) EXECUTE FUNCTION account_day_use_moved();
${backfill("(extract(epoch FROM now()) * 1000)::bigint")}
`;

const sqlite = `${table("INTEGER")}
CREATE TRIGGER account_day_use_insert AFTER INSERT ON transactions
WHEN ${counts("new")} BEGIN
  INSERT INTO account_day_use (account_id, day_start, firm_id, amount)
  VALUES (new.account_id, ${dayOf("new")}, new.firm_id, new.amount)
  ON CONFLICT (account_id, day_start, firm_id) DO UPDATE SET amount = amount + excluded.amount;
END;
CREATE TRIGGER account_day_use_leave AFTER UPDATE OF type, status, amount, firm_id, account_id, created_at
  ON transactions
WHEN ${counts("old")} AND NOT (${sameShare}) BEGIN
  UPDATE account_day_use SET amount = amount - old.amount
  WHERE account_id = old.account_id AND day_start = ${dayOf("old")} AND firm_id = old.firm_id;
END;
CREATE TRIGGER account_day_use_enter AFTER UPDATE OF type, status, amount, firm_id, account_id, created_at
  ON transactions
WHEN ${counts("new")} AND NOT (${counts("old")} AND ${sameShare}) BEGIN
  INSERT INTO account_day_use (account_id, day_start, firm_id, amount)
  VALUES (new.account_id, ${dayOf("new")}, new.firm_id, new.amount)
  ON CONFLICT (account_id, day_start, firm_id) DO UPDATE SET amount = amount + excluded.amount;
END;
CREATE TRIGGER account_day_use_delete AFTER DELETE ON transactions
WHEN ${counts("old")} BEGIN
  UPDATE account_day_use SET amount = amount - old.amount
  WHERE account_id = old.account_id AND day_start = ${dayOf("old")} AND firm_id = old.firm_id;
END;
${backfill("(CAST(strftime('%s', 'now') AS INTEGER) * 1000)")}
`;

export const accountDayUse: Migration = {
  version: "20261201T1100_account_day_use",
  sqlite,
  postgres,
};
