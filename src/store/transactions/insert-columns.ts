import type { NewTransaction } from "../../domain/transaction.js";

/**
 * The columns a new transaction is written with, in one order for every insert statement, and the
 * PostgreSQL type of each (the batched insert sends every column as a typed array).
 */
export const INSERT_COLUMNS = [
  ["firm_id", "int"],
  ["reference", "text"],
  ["type", "text"],
  ["status", "text"],
  ["amount", "bigint"],
  ["method", "text"],
  ["first_name", "text"],
  ["last_name", "text"],
  ["middle_name", "text"],
  ["username", "text"],
  ["user_id", "text"],
  ["national_id_masked", "text"],
  ["national_id_sealed", "text"],
  ["bank_code", "text"],
  ["iban", "text"],
  ["iban_valid", "int"],
  ["account_id", "int"],
  ["assigned_bank_name", "text"],
  ["assigned_holder_name", "text"],
  ["assigned_iban", "text"],
  ["callback_url", "text"],
  ["routing_log", "text"],
  ["payer_name_key", "text"],
  ["ignored_fields", "text"],
  ["created_at", "bigint"],
  ["updated_at", "bigint"],
] as const satisfies readonly (readonly [keyof NewTransaction, string])[];

/** The column names, comma-separated, for the insert statements' column lists. */
export const INSERT_COLUMN_LIST = INSERT_COLUMNS.map(([column]) => column).join(", ");
