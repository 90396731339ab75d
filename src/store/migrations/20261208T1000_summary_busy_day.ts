import type { Migration } from "./migration.js";

/**
 * The console's summary without reading a busy day's rows (issue 50): its totals, the share a
 * statement line approved, today's deliveries and the pending queues each read a few hundred rows
 * however many transactions the day holds.
 *
 * - `transaction_hours` (SQLite's since 20261203T1000_summary_hours; PostgreSQL's from here on)
 *   counts each hour's transactions per firm, type and status, with their amounts' sum and `auto`:
 *   how many of them the statement rule decided (`decided_by = 'service:reconcile'`). On SQLite its
 *   triggers are made again to keep `auto` (a decision moves a row from one bucket to another).
 * - `callback_hours` counts the callbacks whose last delivery (`delivered_at`) fell in each hour.
 * - SQLite: `transactions_pending_created_idx` holds the pending rows by creation time, with their
 *   type and firm: each queue's count and its oldest transaction from the index alone. Creation
 *   time first: led by the type, SQLite's planner took it for the queues (by type, in id order).
 *   PostgreSQL has none: its planner took such an index, on a table not analyzed yet, for intake's
 *   check of a user's pending transaction, which transactions_one_pending_uq serves; there the
 *   queues are counted from the buckets, and the oldest found by transactions_status_idx.
 *
 * On SQLite the triggers update the buckets themselves: it has one writer at a time anyway. On
 * PostgreSQL a bucket updated by every writer would be a row lock held to commit by every deposit
 * of a firm in that hour, across every instance. There the triggers only append to
 * `transaction_hour_deltas` and `callback_hour_deltas` (inserts take no lock another writer waits
 * for; an insert statement writes one row per bucket it touches), and the minute's fold
 * (jobs/purges.ts, store/transactions/summary-hours.ts) moves the deltas into the buckets, deleting
 * them in the same statement. The summary reads buckets and deltas together in one statement, so one
 * snapshot sees every change once, folded or not: the figures are exact, never estimated.
 *
 * PostgreSQL's pending queues are counted from the buckets too, however old: a count of ten
 * thousand pending rows by index visits ten thousand table rows there (the visibility map of a busy
 * table's recent pages is rarely set), and the buckets' pending rows of every hour are few
 * (`transaction_hours_pending_idx` holds those not empty).
 *
 * Only hours since yesterday's start in Türkiye are summed by the migration (the summary asks for
 * today alone), and on PostgreSQL the pending rows of every hour, from the database's clock, after
 * the triggers are made: on PostgreSQL making them locks both tables against writes until the
 * migration commits, so no row is written between the sums and the triggers; on SQLite the
 * migration holds every write. Older hours keep what the triggers do to them from then on, which
 * nothing reads. `auto` is set for those hours on SQLite the same way. The buckets and deltas are
 * small tables that a plan never reads in parallel: starting workers would cost more than the rows.
 */
const HOUR = "3600000";
const DAY = "86400000";
const OFFSET = "10800000";
/** The statement rule's actor (domain/statement-lines.ts RECONCILE_ACTOR). */
const RECONCILE = "'service:reconcile'";

const hourOf = (at: string) => `${at} - (${at} % ${HOUR})`;
const autoOf = (row: string) => `(CASE WHEN ${row}.decided_by = ${RECONCILE} THEN 1 ELSE 0 END)`;

/** Yesterday's start in Türkiye, from the database's clock (`now` in ms). */
const yesterdayFrom = (now: string) => `(${now} - ((${now} + ${OFFSET}) % ${DAY}) - ${DAY})`;

const sqliteNow = "(CAST(strftime('%s', 'now') AS INTEGER) * 1000)";
const sqliteEnter = (row: string) => `
  INSERT INTO transaction_hours (hour_start, firm_id, type, status, count, volume, auto)
  VALUES (${hourOf(`${row}.created_at`)}, ${row}.firm_id, ${row}.type, ${row}.status, 1, ${row}.amount,
    ${autoOf(row)})
  ON CONFLICT (hour_start, firm_id, type, status)
  DO UPDATE SET count = count + 1, volume = volume + excluded.volume, auto = auto + excluded.auto;`;
const sqliteLeave = `
  UPDATE transaction_hours SET count = count - 1, volume = volume - old.amount, auto = auto - ${autoOf("old")}
  WHERE hour_start = ${hourOf("old.created_at")} AND firm_id = old.firm_id AND type = old.type
    AND status = old.status;`;
const columns = "type, status, amount, firm_id, created_at, decided_by";
const sqliteMoved = `old.status IS NOT new.status OR old.type IS NOT new.type OR old.amount IS NOT new.amount
  OR old.firm_id IS NOT new.firm_id OR old.created_at IS NOT new.created_at
  OR ${autoOf("old")} <> ${autoOf("new")}`;
const sqliteDelivered = (at: string) => `
  INSERT INTO callback_hours (hour_start, delivered) SELECT ${hourOf(at)}, 1 WHERE ${at} IS NOT NULL
  ON CONFLICT (hour_start) DO UPDATE SET delivered = delivered + 1;`;
const sqliteUndelivered = `
  UPDATE callback_hours SET delivered = delivered - 1 WHERE hour_start = ${hourOf("old.delivered_at")};`;

const sqlite = `
CREATE INDEX transactions_pending_created_idx ON transactions (created_at, type, firm_id)
  WHERE status = 'pending';
ALTER TABLE transaction_hours ADD COLUMN auto INTEGER NOT NULL DEFAULT 0;
DROP TRIGGER transaction_hours_insert;
DROP TRIGGER transaction_hours_update;
DROP TRIGGER transaction_hours_delete;
CREATE TRIGGER transaction_hours_insert AFTER INSERT ON transactions BEGIN${sqliteEnter("new")}
END;
CREATE TRIGGER transaction_hours_update AFTER UPDATE OF ${columns} ON transactions
WHEN ${sqliteMoved} BEGIN${sqliteLeave}${sqliteEnter("new")}
END;
CREATE TRIGGER transaction_hours_delete AFTER DELETE ON transactions BEGIN${sqliteLeave}
END;
UPDATE transaction_hours AS h SET auto = r.n
FROM (SELECT ${hourOf("t.created_at")} AS hour_start, t.firm_id, t.type, t.status, count(*) AS n
  FROM transactions t
  WHERE t.created_at >= ${yesterdayFrom(sqliteNow)} AND t.decided_by = ${RECONCILE}
  GROUP BY 1, 2, 3, 4) AS r
WHERE h.hour_start = r.hour_start AND h.firm_id = r.firm_id AND h.type = r.type AND h.status = r.status;

CREATE TABLE callback_hours (
  hour_start INTEGER PRIMARY KEY,
  delivered INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TRIGGER callback_hours_insert AFTER INSERT ON callbacks
WHEN new.delivered_at IS NOT NULL BEGIN${sqliteDelivered("new.delivered_at")}
END;
CREATE TRIGGER callback_hours_update AFTER UPDATE OF delivered_at ON callbacks
WHEN old.delivered_at IS NOT new.delivered_at BEGIN${sqliteUndelivered}${sqliteDelivered("new.delivered_at")}
END;
CREATE TRIGGER callback_hours_delete AFTER DELETE ON callbacks
WHEN old.delivered_at IS NOT NULL BEGIN${sqliteUndelivered}
END;
INSERT INTO callback_hours (hour_start, delivered)
SELECT ${hourOf("delivered_at")}, count(*) FROM callbacks
WHERE delivered_at >= ${yesterdayFrom(sqliteNow)}
GROUP BY 1;
`;

const pgNow = "(extract(epoch FROM now()) * 1000)::bigint";
const pgHourKey = "hour_start, firm_id, type, status";
const pgDelta = (row: string, sign: string) =>
  `(${hourOf(`${row}.created_at`)}, ${row}.firm_id, ${row}.type, ${row}.status, ${sign}1,
    ${sign}${row}.amount, ${sign}${autoOf(row)})`;

const postgres = `
CREATE TABLE transaction_hours (
  hour_start BIGINT NOT NULL,
  firm_id INTEGER NOT NULL,
  type TEXT NOT NULL,
  status TEXT NOT NULL,
  count BIGINT NOT NULL,
  volume BIGINT NOT NULL,
  auto BIGINT NOT NULL,
  PRIMARY KEY (${pgHourKey})
);
CREATE TABLE transaction_hour_deltas (
  hour_start BIGINT NOT NULL,
  firm_id INTEGER NOT NULL,
  type TEXT NOT NULL,
  status TEXT NOT NULL,
  count BIGINT NOT NULL,
  volume BIGINT NOT NULL,
  auto BIGINT NOT NULL
);
CREATE TABLE callback_hours (
  hour_start BIGINT PRIMARY KEY,
  delivered BIGINT NOT NULL
);
CREATE TABLE callback_hour_deltas (
  hour_start BIGINT NOT NULL,
  delivered BIGINT NOT NULL
);
CREATE FUNCTION transaction_hours_added() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO transaction_hour_deltas (${pgHourKey}, count, volume, auto)
  SELECT ${hourOf("a.created_at")}, a.firm_id, a.type, a.status, count(*), sum(a.amount),
    count(*) FILTER (WHERE a.decided_by = ${RECONCILE})
  FROM added a GROUP BY 1, 2, 3, 4;
  RETURN NULL;
END $$;
CREATE FUNCTION transaction_hours_moved() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' THEN
    INSERT INTO transaction_hour_deltas (${pgHourKey}, count, volume, auto)
    VALUES ${pgDelta("OLD", "-")}, ${pgDelta("NEW", "")};
  ELSE
    INSERT INTO transaction_hour_deltas (${pgHourKey}, count, volume, auto) VALUES ${pgDelta("OLD", "-")};
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER transaction_hours_insert AFTER INSERT ON transactions
  REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION transaction_hours_added();
CREATE TRIGGER transaction_hours_update AFTER UPDATE OF ${columns} ON transactions
  FOR EACH ROW
  WHEN ((OLD.status, OLD.type, OLD.amount, OLD.firm_id, OLD.created_at, ${autoOf("OLD")})
    IS DISTINCT FROM (NEW.status, NEW.type, NEW.amount, NEW.firm_id, NEW.created_at, ${autoOf("NEW")}))
  EXECUTE FUNCTION transaction_hours_moved();
CREATE TRIGGER transaction_hours_delete AFTER DELETE ON transactions
  FOR EACH ROW EXECUTE FUNCTION transaction_hours_moved();
CREATE FUNCTION callback_hours_moved() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' AND OLD.delivered_at IS NOT NULL THEN
    INSERT INTO callback_hour_deltas (hour_start, delivered) VALUES (${hourOf("OLD.delivered_at")}, -1);
  END IF;
  IF TG_OP <> 'DELETE' AND NEW.delivered_at IS NOT NULL THEN
    INSERT INTO callback_hour_deltas (hour_start, delivered) VALUES (${hourOf("NEW.delivered_at")}, 1);
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER callback_hours_insert AFTER INSERT ON callbacks
  FOR EACH ROW WHEN (NEW.delivered_at IS NOT NULL) EXECUTE FUNCTION callback_hours_moved();
CREATE TRIGGER callback_hours_update AFTER UPDATE OF delivered_at ON callbacks
  FOR EACH ROW WHEN (OLD.delivered_at IS DISTINCT FROM NEW.delivered_at)
  EXECUTE FUNCTION callback_hours_moved();
CREATE TRIGGER callback_hours_delete AFTER DELETE ON callbacks
  FOR EACH ROW WHEN (OLD.delivered_at IS NOT NULL) EXECUTE FUNCTION callback_hours_moved();
INSERT INTO transaction_hours (${pgHourKey}, count, volume, auto)
SELECT ${hourOf("created_at")}, firm_id, type, status, count(*), sum(amount),
  count(*) FILTER (WHERE decided_by = ${RECONCILE})
FROM transactions WHERE created_at >= ${yesterdayFrom(pgNow)}
GROUP BY 1, 2, 3, 4
UNION ALL
SELECT ${hourOf("created_at")}, firm_id, type, status, count(*), sum(amount), 0
FROM transactions WHERE created_at < ${yesterdayFrom(pgNow)} AND status = 'pending'
GROUP BY 1, 2, 3, 4;
CREATE INDEX transaction_hours_pending_idx ON transaction_hours (type, firm_id)
  WHERE status = 'pending' AND count <> 0;
ALTER TABLE transaction_hours SET (parallel_workers = 0);
ALTER TABLE transaction_hour_deltas SET (parallel_workers = 0);
ALTER TABLE callback_hours SET (parallel_workers = 0);
ALTER TABLE callback_hour_deltas SET (parallel_workers = 0);
INSERT INTO callback_hours (hour_start, delivered)
SELECT ${hourOf("delivered_at")}, count(*) FROM callbacks
WHERE delivered_at >= ${yesterdayFrom(pgNow)}
GROUP BY 1;
`;

export const summaryBusyDay: Migration = {
  version: "20261208T1000_summary_busy_day",
  sqlite,
  postgres,
};
