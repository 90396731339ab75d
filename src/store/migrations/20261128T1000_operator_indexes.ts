import { storedIbanKeySql } from "../transactions/transaction-searches.js";
import type { Migration } from "./migration.js";

/**
 * An index for each way the console and the admin API reach transactions, so that none reads the
 * whole table once it holds years of them (docs/BENCHMARKS.md, "Volume"; docs/operations.md gives
 * what each costs a deposit and how long each takes to build on a large store):
 * - the queues: the pending rows in id order (a partial index: only what waits for an operator is
 *   in it, however old the table). Not by type first: then it would match the deposit path's probe
 *   for a user's pending transaction as well as transactions_one_pending_uq does, and the planner,
 *   without statistics, took it there and read every pending row of the type.
 * - a firm's transactions, newest first;
 * - a reference, a user id or a username across firms (the unique index starts with the firm);
 * - an amount, asked or sent (the second only where an operator approved another sum than asked);
 * - a date range, and the summary's day (created_at); decision times (decided_at);
 * - a payer's IBAN as typed or pasted (the searches' ibanKey; an account's IBAN is found through
 *   its account).
 * In SQLite every index ends with the row id, which the searches order by; PostgreSQL's is named.
 */
export const operatorIndexes: Migration = {
  version: "20261128T1000_operator_indexes",
  // SQLite's planner takes (status, created_at) for `status = 'approved'` and sorts millions of rows
  // for a page of 200; the pending index serves every pending lookup, and the rest read the newest
  // rows first. PostgreSQL weighs the LIMIT and keeps it.
  // A firm's queue on SQLite: its pending rows only, in their order (with statistics, SQLite walked
  // the firm's whole history by transactions_firm_idx). Not on PostgreSQL: there, without
  // statistics, the planner took it for the deposit path's probe of a user's pending transaction
  // instead of transactions_one_pending_uq; its queue is served by the pending and status indexes.
  sqlite: `DROP INDEX transactions_status_idx;
CREATE INDEX transactions_pending_firm_idx ON transactions (firm_id, id) WHERE status = 'pending';`,
  postgres: "",
  indexes: [
    { name: "transactions_pending_idx", table: "transactions", definition: "(id) WHERE status = 'pending'" },
    { name: "transactions_firm_idx", table: "transactions", definition: "(firm_id, id)" },
    { name: "transactions_reference_idx", table: "transactions", definition: "(reference, id)" },
    { name: "transactions_user_idx", table: "transactions", definition: "(user_id, id)" },
    { name: "transactions_username_idx", table: "transactions", definition: "(username, id)" },
    { name: "transactions_amount_idx", table: "transactions", definition: "(amount, id)" },
    {
      name: "transactions_sent_amount_idx",
      table: "transactions",
      definition: "(original_amount, id) WHERE original_amount IS NOT NULL",
    },
    { name: "transactions_created_idx", table: "transactions", definition: "(created_at)" },
    {
      name: "transactions_iban_key_idx",
      table: "transactions",
      definition: `((${storedIbanKeySql("iban")}))`,
    },
    {
      name: "transactions_decided_idx",
      table: "transactions",
      definition: "(decided_at) WHERE decided_at IS NOT NULL",
    },
    // The summary's callbacks delivered today (dashboard/summary.ts), without walking the
    // callbacks of years.
    {
      name: "callbacks_delivered_idx",
      table: "callbacks",
      definition: "(delivered_at) WHERE delivered_at IS NOT NULL",
    },
  ],
};
