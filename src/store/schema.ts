/**
 * Table shapes as Kysely sees them. Both stores keep the same columns: times are epoch
 * milliseconds, money is integer minor units, flags are 0/1 integers, so that one set of queries
 * serves SQLite and PostgreSQL alike.
 */
import type { Generated } from "kysely";
import type { Transaction } from "../domain/transaction.js";

/**
 * The largest value the INTEGER columns that name a row hold on PostgreSQL (firm_id, provider_id,
 * account_id, channel_id, operator_id; the ids themselves are BIGINT). Compared with such a column,
 * a larger value is an error there ("value out of range for type integer"), not a miss: a filter by
 * it is answered as one by any other unknown id, with no rows, without asking the database.
 */
export const MAX_INTEGER_ID = 2_147_483_647;

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
  /** A test firm: its deposits get the sandbox account and it may use the sandbox helpers. */
  sandbox: Generated<number>;
  /** A bank statement's line may approve this firm's deposits by itself (1, the default). */
  reconcile_auto: Generated<number>;
  /** ... with the amount and the payer's full name, without the payment code (1, the default). */
  reconcile_by_name: Generated<number>;
  /** Direct-mode answers and queries add `payment_code` (0, the default: the contract's answer as it is). */
  answer_payment_code: Generated<number>;
  /** The most deposits the firm may have pending at once (1,000 by default); null: no bound. */
  max_pending_count: Generated<number | null>;
  /** The most its pending deposits may add up to, minor units (2,000,000.00 TL by default); null: no bound. */
  max_pending_amount: Generated<number | null>;
  /**
   * The most of each capped account's day its deposits may take, percent; null (the default): the
   * service's default share while other live firms share the account (domain/cap-share.ts).
   */
  max_cap_share: Generated<number | null>;
  /** The shop's name on the payment page; null (the default): the firm's name. */
  display_name: Generated<string | null>;
  /** Above it (minor units) the payment page warns of an unusual amount; null: judged by recent deposits. */
  usual_amount_max: Generated<number | null>;
  /** How far below zero the firm's balance may go for its payouts, minor units; null: not at all. */
  overdraft: Generated<number | null>;
  created_at: number;
  updated_at: number;
}

/** A firm's pending deposits, kept by triggers on `transactions` (migration 20261129T1000). */
export interface FirmPendingTable {
  firm_id: number;
  deposits: number;
  amount: number;
  /** When operators were last told the firm reached a bound (its audit entry). */
  bound_noted_at: number | null;
}

/**
 * What a firm's deposits took of a payment account on one of Türkiye's days, kept by triggers
 * (migration 20261201T1100_account_day_use): the daily caps' sum.
 */
export interface AccountDayUseTable {
  account_id: number;
  /** The day's start, epoch ms (startOfTurkeyDay). */
  day_start: number;
  firm_id: number;
  amount: number;
}

/**
 * Each UTC day's smallest and largest transaction id, kept by triggers on SQLite only (migration
 * 20261202T1000_transaction_days): where a name search with dates walks the full-text index.
 */
export interface TransactionDaysTable {
  /** `created_at / 86400000`. */
  day: number;
  first_id: number;
  last_id: number;
}

/**
 * Each hour's transactions per firm, type and status, kept by triggers (SQLite only: migration
 * 20261203T1000_summary_hours): the console summary's totals.
 */
export interface TransactionHoursTable {
  /** `created_at - created_at % 3600000`. */
  hour_start: number;
  firm_id: number;
  type: string;
  status: string;
  count: number;
  /** The amounts' sum, minor units. */
  volume: number;
  /** Of `count`, those the statement rule decided (`decided_by` 'service:reconcile'). */
  auto: number;
}

/** PostgreSQL: changes to `transaction_hours` not folded into it yet (migration 20261208T1000). */
export type TransactionHourDeltasTable = TransactionHoursTable;

/** Callbacks by the hour of their last delivery (`delivered_at - delivered_at % 3600000`). */
export interface CallbackHoursTable {
  hour_start: number;
  delivered: number;
}

/** PostgreSQL: changes to `callback_hours` not folded into it yet. */
export type CallbackHourDeltasTable = CallbackHoursTable;

export interface PaymentAccountTable {
  id: Generated<number>;
  bank_name: string;
  holder_name: string;
  iban: string;
  min_amount: number | null;
  max_amount: number | null;
  active: number;
  /** The channel that must accept each deposit; null = the account itself (manual). */
  channel_id: number | null;
  /** The bank's code as merchants send it in `bank_code` (e.g. AKBANK): such accounts are preferred. */
  bank_code: string | null;
  /** The most this account may take in deposits per day (Europe/Istanbul), in minor units. */
  daily_cap: number | null;
  /** The sandbox firms' account; never routed to for live firms. */
  sandbox: Generated<number>;
  /** The live statement feed's secret (reconciliation/feed.ts), sealed; null while it has none. */
  feed_secret_sealed: Generated<string | null>;
  /** How long the feed may be silent before operators are warned. */
  feed_silence_minutes: Generated<number | null>;
  /** When the feed last sent a request that checked out (lines or an empty heartbeat). */
  feed_last_at: Generated<number | null>;
  created_at: number;
  updated_at: number;
}

export interface ChannelTable {
  id: Generated<number>;
  code: string;
  kind: "manual" | "http";
  url: string | null;
  /** The secret asks are signed with (http channels), sealed with the master key. */
  secret_sealed: string | null;
  timeout_ms: number;
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

/** The transactions table: the row of domain/transaction.ts, its id given by the store. */
export interface TransactionTable extends Omit<Transaction, "id"> {
  id: Generated<number>;
}

export interface CallbackTable {
  id: Generated<number>;
  transaction_id: number;
  firm_id: number;
  event: string;
  url: string;
  /** scheme://host:port of the URL: deliveries are capped per origin, so one slow receiver waits alone. */
  origin: string;
  /** The JSON body without its hashcode, fixed at decision time: identical on every attempt. */
  payload: string;
  /** reference|type|status|amount, signed with the firm's current secret at send time. */
  hash_input: string;
  status: "pending" | "delivered" | "failed";
  /** Position in the retry schedule since the last (re)delivery request. */
  step: number;
  attempts: number;
  /**
   * The attempt the last claim was for: ahead of `attempts` while a worker holds the row, or after
   * one stopped holding it without recording (migration 20261209T1000).
   */
  claimed_attempt: Generated<number>;
  next_attempt_at: number;
  /** A worker that claimed the row holds it until then; 0 when free. */
  lease_until: number;
  lease_owner: string | null;
  /** Bumped by each redelivery request: an attempt claimed before one does not move the schedule. */
  schedule_version: Generated<number>;
  last_attempt_at: number | null;
  last_result: string | null;
  delivered_at: number | null;
  failed_at: number | null;
  created_at: number;
  updated_at: number;
}

export interface CallbackAttemptTable {
  id: Generated<number>;
  callback_id: number;
  attempt: number;
  started_at: number;
  duration_ms: number;
  http_status: number | null;
  error: string | null;
  response_excerpt: string | null;
  outcome: "delivered" | "retry" | "failed";
}

export interface PaymentSessionTable {
  id: Generated<number>;
  /** SHA-256 of the token, hex; the token itself is only in the payment_url. */
  token_hash: string;
  firm_id: number;
  reference: string;
  /** The validated deposit request (JSON), sealed with the master key: it holds the national id. */
  request_sealed: string;
  callback_url: string;
  return_url: string | null;
  status: "open" | "assigned";
  transaction_id: number | null;
  expires_at: number;
  created_at: number;
  updated_at: number;
}

export interface OperatorTable {
  id: Generated<number>;
  email: string;
  role: "admin" | "operator" | "viewer";
  /** scrypt: "scrypt$N$r$p$salt$hash", base64url parts (operators/passwords.ts). */
  password_hash: string;
  failed_logins: number;
  locked_until: number;
  /** The last failure counted in `failed_logins`; failures a day old are forgotten. */
  last_failed_at: Generated<number>;
  active: number;
  /** The authenticator secret, sealed with the master key; null while there is no second factor. */
  totp_sealed: string | null;
  /** A secret being set up: it replaces `totp_sealed` once a code from it is confirmed. */
  totp_pending_sealed: string | null;
  /** The last time step a code was taken at (operators/totp.ts): each code is taken once. */
  totp_last_step: Generated<number>;
  created_at: number;
  updated_at: number;
}

export interface OperatorSessionTable {
  id: Generated<number>;
  /** SHA-256 of the cookie's token, hex. */
  token_hash: string;
  operator_id: number;
  csrf_token: string;
  /** SHA-256 of the known-browser token it was signed in with (operators/devices.ts); null before those. */
  device_hash: string | null;
  expires_at: number;
  created_at: number;
  /**
   * When the session last saw its operator act (operators/idle.ts), at most a minute behind: it ends
   * once this is the idle timeout ago. Sessions from before it were counted active at the upgrade.
   */
  last_active_at: Generated<number>;
}

export interface OperatorRecoveryCodeTable {
  id: Generated<number>;
  operator_id: number;
  /** SHA-256 of the normalised code, hex (operators/recovery-codes.ts); never the code. */
  code_hash: string;
  /** When it was used to sign in; null while it can still be used. */
  used_at: number | null;
  created_at: number;
}

export interface OperatorDeviceTable {
  /** SHA-256 of the browser's device cookie, hex (operators/devices.ts); never the token. */
  token_hash: string;
  operator_id: number;
  created_at: number;
  /** The last sign-in from it; it is forgotten some months after (DEVICE_TTL_MS). */
  seen_at: number;
}

export interface LoginLockTable {
  /** A hash naming a known browser of an operator, or an email that is no operator's (operators/devices.ts). */
  key: string;
  /** Wrong guesses in a row; a success forgets them. */
  failures: number;
  locked_until: number;
  updated_at: number;
}

export interface AuditLogTable {
  id: Generated<number>;
  /** "operator:<email>", "cli:<name>" or "service:<job>". */
  actor: string;
  action: string;
  entity_type: string;
  entity_id: string;
  before_json: string | null;
  after_json: string | null;
  at: number;
}

export interface RateWindowTable {
  key: string;
  window_start: number;
  count: number;
}

export interface LoginWindowTable {
  /** A hash of the client's address key (operators/login-throttle.ts), not the address itself. */
  key: string;
  since: number;
  count: number;
}

export interface CapHoldTable {
  id: Generated<number>;
  account_id: number;
  amount: number;
  expires_at: number;
  /** The deposit held for (firm and reference); null on holds written before they named it. */
  firm_id: number | null;
  reference: string | null;
}

export interface StoreKeyTable {
  /** What the key is for: "master" (the key every sealed secret is sealed with). */
  purpose: string;
  /** Derived from the key (crypto/key-check.ts); tells keys apart without revealing them. */
  key_check: string;
  created_at: number;
}

/** One row (id 1): the key payment codes are computed with (domain/payment-code.ts). */
export interface PaymentCodeKeyTable {
  id: number;
  /** 32 random bytes (hex), sealed with the master key; null until a start seals one. */
  key_sealed: string | null;
  /** The highest transaction id at the migration: deposits up to it keep their keyless code. */
  legacy_through: number;
  sealed_at: number | null;
}

export interface SchemaMigrationTable {
  version: string;
  applied_at: number;
}

/** An operator paying out a pending withdrawal now (store/decisions/payout-claims.ts). */
export interface PayoutClaimTable {
  transaction_id: number;
  /** The operator's email. */
  operator: string;
  claimed_at: number;
}

/** Payout settings an admin set for a scope: 'all', 'firm:<id>' or 'account:<id>' (payouts/settings.ts). */
export interface PayoutSettingsTable {
  scope: string;
  /** JSON of the keys set at this scope; a key absent is inherited from the wider scope. */
  settings: string;
  updated_by: string;
  updated_at: number;
}

export type PayoutBatchStage = "second_approval" | "batched" | "sent" | "closed" | "cancelled";

/** A batch of payouts from one company account (migration 20261206T1000, docs/payouts.md). */
export interface PayoutBatchTable {
  id: Generated<number>;
  account_id: number;
  firm_id: number | null;
  stage: PayoutBatchStage;
  payouts: number;
  /** Minor units. */
  total: number;
  /** Why a second operator must approve it (the rule that asked); null when none must. */
  second_reason: string | null;
  created_by: string;
  created_at: number;
  approved_by: string | null;
  approved_at: number | null;
  sent_by: string | null;
  sent_at: number | null;
  cancelled_by: string | null;
  updated_at: number;
}

export type PayoutAttemptStage =
  | "second_approval"
  | "batched"
  | "sent"
  | "paid"
  | "returned"
  | "failed"
  | "cancelled";

/** One attempt to pay a withdrawal: its own payment id, in one batch. */
export interface PayoutAttemptTable {
  id: Generated<number>;
  transaction_id: number;
  batch_id: number;
  firm_id: number;
  account_id: number;
  /** ISO 20022 EndToEndId and the text the bank carries; never reused. */
  payment_id: string;
  amount: number;
  payee_name: string;
  payee_iban: string;
  method: "FAST" | "EFT";
  stage: PayoutAttemptStage;
  /** The bank's or channel's reason for a return or a refusal. */
  reason: string | null;
  /** Raised for operators: overdue, returned after it was approved, possibly paid twice. */
  flag: string | null;
  created_by: string;
  created_at: number;
  sent_at: number | null;
  ended_at: number | null;
  updated_at: number;
}

/** A statement line that paid (debit) or sent back (return) a payout attempt. */
export interface PayoutLineLinkTable {
  line_id: number;
  attempt_id: number;
  role: "debit" | "return";
}

export interface StatementImportTable {
  id: Generated<number>;
  account_id: number;
  format: string;
  sequence: string | null;
  opening_amount: number | null;
  closing_amount: number | null;
  /** Why the statement does not add up, one reason a line; empty when it does. */
  doubts: Generated<string>;
  lines_read: number;
  imported_by: string;
  created_at: number;
}

export type StatementLineState =
  | "approved"
  | "settled"
  | "suggested"
  | "unmatched"
  | "after_cancellation"
  | "debit"
  | "not_ours";

export interface StatementLineTable {
  id: Generated<number>;
  account_id: number;
  line_key: string;
  import_id: number | null;
  source: "file" | "feed" | "hand";
  booked_at: number;
  date_only: number;
  amount: number;
  direction: "credit" | "debit";
  currency: string;
  sender_name: string | null;
  sender_iban: string | null;
  description: string;
  bank_ref: string | null;
  state: StatementLineState;
  transaction_id: number | null;
  /** The matching's evidence and reasons, as JSON (reconciliation/matching.ts). */
  evidence: Generated<string>;
  created_at: number;
  decided_at: number | null;
  decided_by: string | null;
  /** What the line did for payouts (migration 20261206T1100); null for a line of no payout. */
  payout_outcome: Generated<StatementLinePayoutOutcome | null>;
  /** The payment id the bank carried (camt.053 EndToEndId, the feed's end_to_end_id). */
  end_to_end_id: Generated<string | null>;
  /** The posting that took the line's money in when it was written (held for nobody, a bank fee; migration 20261207T1200). */
  held_posting_id: Generated<number | null>;
  /** On a debit that paid a refund: the credit line marked not ours it sent back (migration 20261210T1000). */
  refund_of: Generated<number | null>;
}

export type StatementLinePayoutOutcome =
  | "paid"
  | "suggested"
  | "double_payment"
  | "after_return"
  | "fee"
  | "unmatched"
  | "return"
  | "return_unknown";

export interface Database {
  providers: ProviderTable;
  firms: FirmTable;
  firm_pending: FirmPendingTable;
  payment_accounts: PaymentAccountTable;
  banned_users: BannedUserTable;
  nonces: NonceTable;
  transactions: TransactionTable;
  callbacks: CallbackTable;
  channels: ChannelTable;
  payment_sessions: PaymentSessionTable;
  operators: OperatorTable;
  rate_windows: RateWindowTable;
  login_windows: LoginWindowTable;
  cap_holds: CapHoldTable;
  account_day_use: AccountDayUseTable;
  transaction_days: TransactionDaysTable;
  transaction_hours: TransactionHoursTable;
  transaction_hour_deltas: TransactionHourDeltasTable;
  callback_hours: CallbackHoursTable;
  callback_hour_deltas: CallbackHourDeltasTable;
  operator_sessions: OperatorSessionTable;
  operator_recovery_codes: OperatorRecoveryCodeTable;
  operator_devices: OperatorDeviceTable;
  payout_claims: PayoutClaimTable;
  payout_settings: PayoutSettingsTable;
  payout_batches: PayoutBatchTable;
  payout_attempts: PayoutAttemptTable;
  payout_line_links: PayoutLineLinkTable;
  login_locks: LoginLockTable;
  audit_log: AuditLogTable;
  callback_attempts: CallbackAttemptTable;
  store_keys: StoreKeyTable;
  payment_code_keys: PaymentCodeKeyTable;
  statement_imports: StatementImportTable;
  statement_lines: StatementLineTable;
  schema_migrations: SchemaMigrationTable;
}

/** The ledger (migration 20261206T1200_ledger, docs/ledger.md): accounts by key. */
export interface LedgerAccountTable {
  id: Generated<number>;
  /** `firm:7`, `in_transit:7`, `cash:TR…`, `commission`, … (domain/ledger.ts). */
  key: string;
  kind: string;
  ref: string | null;
  created_at: number;
}

/** A posting: written whole, with its entries, by its own insert; never changed or deleted. */
export interface LedgerPostingTable {
  id: Generated<number>;
  idempotency_key: string;
  kind: string;
  at: number;
  actor: string;
  corrects: number | null;
  memo: string | null;
  flag: string | null;
  /** Its entries as written: a JSON array the insert's trigger turns into `ledger_entries`. */
  lines: string;
}

/** One entry: kuruş, debits positive, credits negative; TRY only. */
export interface LedgerEntryTable {
  id: Generated<number>;
  posting_id: number;
  account_id: number;
  kind: string;
  amount: number;
  currency: "TRY";
  at: number;
}

/** Each account's balance in a few counters (shards), kept by the posting's trigger (ADR 0019). */
export interface LedgerBalanceTable {
  account_id: number;
  shard: number;
  balance: number;
}

/** Each account's movements per Türkiye day, entry kind and shard, kept by the posting's trigger. */
export interface LedgerDayTable {
  account_id: number;
  day_start: number;
  kind: string;
  shard: number;
  amount: number;
  entries: number;
}

/** A firm's commission schedule for deposits or withdrawals, in force from `from_at`. */
export interface FirmCommissionTable {
  id: Generated<number>;
  firm_id: number;
  kind: "deposit" | "withdrawal";
  percent_bp: number;
  fixed: number;
  min: number | null;
  max: number | null;
  from_at: number;
  created_by: string;
  created_at: number;
}

/** The ledger's tables, merged into the store's `Database` above. */
export interface Database {
  ledger_accounts: LedgerAccountTable;
  ledger_postings: LedgerPostingTable;
  ledger_entries: LedgerEntryTable;
  ledger_balances: LedgerBalanceTable;
  ledger_days: LedgerDayTable;
  firm_commissions: FirmCommissionTable;
}
