import type { Generated } from "kysely";

/**
 * Table shapes as Kysely sees them. Both stores keep the same columns: times are epoch
 * milliseconds, money is integer minor units, flags are 0/1 integers, so that one set of queries
 * serves SQLite and PostgreSQL alike.
 */
export interface ProviderTable {
  id: Generated<number>;
  name: string;
  kind: "direct" | "platform" | "aggregator";
  callback_url: string | null;
  auto_cancel_minutes: number;
  created_at: number;
  updated_at: number;
}

export interface FirmTable {
  id: Generated<number>;
  provider_id: number | null;
  name: string;
  api_key: string;
  /** The secret key, sealed with the master key (crypto/secret-box.ts). */
  secret_sealed: string;
  webhook_url: string | null;
  legacy_http: number;
  callback_middle_name: number;
  deposit_min: number | null;
  deposit_max: number | null;
  deposits_open: number;
  withdrawals_open: number;
  active: number;
  rate_limit_per_second: number;
  created_at: number;
  updated_at: number;
}

export interface PaymentAccountTable {
  id: Generated<number>;
  bank_name: string;
  holder_name: string;
  iban: string;
  min_amount: number | null;
  max_amount: number | null;
  active: number;
  created_at: number;
  updated_at: number;
}

export interface BannedUserTable {
  firm_id: number;
  user_id: string;
  created_at: number;
}

export interface NonceTable {
  firm_id: number;
  nonce: string;
  expires_at: number;
}

export interface TransactionTable {
  id: Generated<number>;
  firm_id: number;
  reference: string;
  type: "deposit" | "withdrawal";
  status: "pending" | "approved" | "rejected";
  amount: number;
  method: string | null;
  first_name: string;
  last_name: string;
  middle_name: string | null;
  username: string;
  user_id: string;
  national_id_masked: string | null;
  /** The full national id, sealed with the master key; only operators with the right role see it. */
  national_id_sealed: string | null;
  bank_code: string;
  iban: string | null;
  iban_valid: number | null;
  account_id: number | null;
  assigned_bank_name: string | null;
  assigned_holder_name: string | null;
  assigned_iban: string | null;
  callback_url: string;
  created_at: number;
  updated_at: number;
}

export interface SchemaMigrationTable {
  version: string;
  applied_at: number;
}

export interface Database {
  providers: ProviderTable;
  firms: FirmTable;
  payment_accounts: PaymentAccountTable;
  banned_users: BannedUserTable;
  nonces: NonceTable;
  transactions: TransactionTable;
  schema_migrations: SchemaMigrationTable;
}
