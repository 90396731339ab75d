import type { Migration } from "./migration.js";

/**
 * The console's summary without reading the day's rows.
 *
 * On SQLite, each hour's transactions per firm, type and status (`transaction_hours`: how many, and
 * their amounts' sum) are kept by triggers on `transactions`, so that the summary's totals read a
 * few hundred rows (store/transactions/summary-figures.ts) instead of grouping the tens of thousands a busy
 * day holds, on the screen operators keep open. An hour is `created_at - created_at % 3600000`;
 * Türkiye's days start on a whole UTC hour, so a day is whole hours. A row counts in the bucket of
 * its type, status and amount of the moment: an update that changes one of them moves it from one
 * bucket to the other, a deletion takes it out. Only hours since yesterday's start in Türkiye are
 * summed by the migration (by the creation time's index): the summary asks for today alone, and the
 * migration holds writes while it reads. An older row decided later enters its hour's bucket
 * without having been in the pending one: old hours are not read, and they never go negative.
 *
 * PostgreSQL has none: there every deposit of a firm in the same hour would update the same row, a
 * lock held until commit and shared by every instance, and its summary meets its target by reading
 * the day's rows (docs/BENCHMARKS.md).
 *
 * Both stores: the index of decision times holds the creation time and the firm too, so that the
 * summary's median time to decision reads the index alone, not a table row per decision.
 */
const HOUR = "3600000";
const DAY = "86400000";
const OFFSET = "10800000";
const hourOf = (row: string) => `${row}.created_at - (${row}.created_at % ${HOUR})`;
const key = (row: string) => `${hourOf(row)}, ${row}.firm_id, ${row}.type, ${row}.status`;
const enter = (row: string) => `
  INSERT INTO transaction_hours (hour_start, firm_id, type, status, count, volume)
  VALUES (${key(row)}, 1, ${row}.amount)
  ON CONFLICT (hour_start, firm_id, type, status)
  DO UPDATE SET count = count + 1, volume = volume + excluded.volume;`;
const leave = `
  UPDATE transaction_hours SET count = count - 1, volume = volume - old.amount
  WHERE hour_start = ${hourOf("old")} AND firm_id = old.firm_id AND type = old.type
    AND status = old.status;`;
const moved = `old.status IS NOT new.status OR old.type IS NOT new.type OR old.amount IS NOT new.amount
  OR old.firm_id IS NOT new.firm_id OR old.created_at IS NOT new.created_at`;
const columns = "type, status, amount, firm_id, created_at";

const sqlite = `
CREATE TABLE transaction_hours (
  hour_start INTEGER NOT NULL,
  firm_id INTEGER NOT NULL,
  type TEXT NOT NULL,
  status TEXT NOT NULL,
  count INTEGER NOT NULL,
  volume INTEGER NOT NULL,
  PRIMARY KEY (hour_start, firm_id, type, status)
) WITHOUT ROWID;
CREATE TRIGGER transaction_hours_insert AFTER INSERT ON transactions BEGIN${enter("new")}
END;
CREATE TRIGGER transaction_hours_update AFTER UPDATE OF ${columns} ON transactions
WHEN ${moved} BEGIN${leave}${enter("new")}
END;
CREATE TRIGGER transaction_hours_delete AFTER DELETE ON transactions BEGIN${leave}
END;
INSERT INTO transaction_hours (hour_start, firm_id, type, status, count, volume)
SELECT ${key("t")}, count(*), sum(t.amount) FROM transactions t
WHERE t.created_at >= ${backfillFrom()}
GROUP BY 1, 2, 3, 4;
`;

/** Yesterday's start in Türkiye, from the database's clock. */
function backfillFrom() {
  const now = "(CAST(strftime('%s', 'now') AS INTEGER) * 1000)";
  return `${now} - ((${now} + ${OFFSET}) % ${DAY}) - ${DAY}`;
}

export const summaryHours: Migration = {
  version: "20261203T1000_summary_hours",
  sqlite,
  postgres: "",
  indexes: [
    {
      name: "transactions_decided_cover_idx",
      table: "transactions",
      replaces: "transactions_decided_idx",
      definition: "(decided_at, created_at, firm_id) WHERE decided_at IS NOT NULL",
    },
  ],
};
