import type { Migration } from "./migration.js";

/**
 * PostgreSQL's name search by the words and the day together: one GIN index over the trigrams of
 * `payer_name_key` and the UTC day number of `created_at` (the btree_gin extension makes an integer
 * a GIN column). A name search always has a start (a search without one covers the last 31 days,
 * transactions/search-window.ts), and with the trigrams alone PostgreSQL reads every row of a common
 * name over the years (thousands of scattered pages) to keep the window's few. With the day in the
 * same index only the window's matches are read. The day is
 * coarse on purpose (a day's entry holds a day's rows); the search keeps its exact times beside it
 * (store/transactions/transaction-searches.ts). It replaces the trigram index of 20261128T1200_name_search,
 * which is kept where btree_gin cannot be installed.
 */
export const nameDayIndex: Migration = {
  version: "20261201T1200_name_day_index",
  sqlite: "",
  postgres: "",
  indexes: [
    {
      name: "transactions_name_day_idx",
      table: "transactions",
      extensions: ["pg_trgm", "btree_gin"],
      replaces: "transactions_name_trgm_idx",
      definition:
        "USING gin (payer_name_key {pg_trgm}.gin_trgm_ops, ((created_at / 86400000)::integer)) WITH (fastupdate = off)",
    },
  ],
};
