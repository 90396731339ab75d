import type { Migration } from "./migration.js";

/**
 * PostgreSQL: an amount's rows by their time, not by their id. A search without dates covers the
 * last 31 days (transactions/search-window.ts), and with the amount in id order every row of a common
 * amount ("1000.00": tens of thousands over the years) was read back to the window's start whenever
 * fewer than a page of them matched the rest of the search: the window's start is a time, which an
 * index in id order cannot stop at. With the time next to the amount only the window's rows of the
 * amount are read (PostgreSQL gathers them in a bitmap and sorts the page from them). These replace
 * the (amount, id) pair of 20261128T1000_operator_indexes, so a deposit writes no more index
 * entries than before. Not on SQLite, which reads a round amount's month of rows one at a time
 * where the walk in id order stops at the page (docs/BENCHMARKS.md, Volume); there a name with an
 * amount goes through the name's rows when the name is rare (transaction-searches.ts).
 */
export const amountDayIndexes: Migration = {
  version: "20261201T1000_amount_day_indexes",
  sqlite: "",
  postgres: "",
  indexes: [
    {
      name: "transactions_amount_day_idx",
      table: "transactions",
      definition: "(amount, created_at)",
      replaces: "transactions_amount_idx",
      postgresOnly: true,
    },
    {
      name: "transactions_sent_amount_day_idx",
      table: "transactions",
      definition: "(original_amount, created_at) WHERE original_amount IS NOT NULL",
      replaces: "transactions_sent_amount_idx",
      postgresOnly: true,
    },
  ],
};
