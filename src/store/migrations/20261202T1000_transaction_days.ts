import type { Migration } from "./migration.js";

/**
 * Each UTC day's smallest and largest transaction id (`transaction_days`, SQLite only), kept by
 * triggers on `transactions`, so that a name search with dates walks the full-text index's matches
 * between two ids (store/transactions/transaction-days.ts) instead of every year's: the index knows ids, not
 * dates. Ids and creation times are not in step (two deposits commit in the other order than they
 * took the time), so the bounds are kept from the rows themselves, never guessed from one row. A
 * row's day is `created_at / 86400000`. A creation time changed later widens its new day's bounds
 * and leaves the old day's as they were: wider bounds read more, never less. Deleted rows leave
 * their bounds too, for the same reason.
 *
 * PostgreSQL has none: its name index holds each row's day (20261201T1200_name_day_index).
 */
const upsert = (row: string) => `
  INSERT INTO transaction_days (day, first_id, last_id)
  VALUES (CAST(${row}.created_at / 86400000 AS INTEGER), ${row}.id, ${row}.id)
  ON CONFLICT (day) DO UPDATE SET first_id = min(first_id, excluded.first_id),
    last_id = max(last_id, excluded.last_id);`;

const sqlite = `
CREATE TABLE transaction_days (
  day INTEGER PRIMARY KEY,
  first_id INTEGER NOT NULL,
  last_id INTEGER NOT NULL
);
CREATE TRIGGER transaction_days_insert AFTER INSERT ON transactions BEGIN${upsert("new")}
END;
CREATE TRIGGER transaction_days_update AFTER UPDATE OF created_at ON transactions BEGIN${upsert("new")}
END;
INSERT INTO transaction_days (day, first_id, last_id)
SELECT CAST(created_at / 86400000 AS INTEGER), min(id), max(id) FROM transactions GROUP BY 1;
`;

export const transactionDays: Migration = {
  version: "20261202T1000_transaction_days",
  sqlite,
  postgres: "",
};
