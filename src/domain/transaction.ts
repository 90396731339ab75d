/**
 * A transaction as the store keeps it: one row of the transactions table. Every other shape of a
 * transaction (a new row, the merchant's view, what a decision or a callback reads) is derived from
 * this one with `Pick` and `Omit`, so a column is named in one place.
 */
export interface Transaction {
  id: number;
  firm_id: number;
  reference: string;
  type: TransactionType;
  status: TransactionStatus;
  /** Minor units (kuruş). */
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
  /** Set when the transaction left pending. */
  decided_at: number | null;
  /** Who decided: "operator:<name>" or "service:auto-cancel". */
  decided_by: string | null;
  decision_note: string | null;
  /** The amount asked for, when an operator approved a deposit with another amount. */
  original_amount: number | null;
  /** The routing attempts of a deposit, as JSON (routing/router.ts); operators only. */
  routing_log: string | null;
  /**
   * The payer's name folded for search (domain/name-search.ts); null only on rows written before
   * the column, until the start that fills them in.
   */
  payer_name_key: string | null;
  /**
   * The names of the request's fields the API does not read (intake/ignored-fields.ts), as a JSON
   * array; null when it had none. Operators only: the merchant's view never carries it.
   */
  ignored_fields: string | null;
}

export type TransactionType = "deposit" | "withdrawal";
export type TransactionStatus = "pending" | "approved" | "rejected";

/** The columns a decision writes: a new transaction has none of them yet. */
type DecisionColumns = "decided_at" | "decided_by" | "decision_note" | "original_amount";

/** A transaction as intake writes it: pending, undecided, its payer's name key computed. */
export type NewTransaction = Omit<Transaction, "id" | "status" | "payer_name_key" | DecisionColumns> & {
  status: "pending";
  payer_name_key: string;
};

/** What intake must know before it writes a transaction; each one refuses it. */
export interface BusinessFacts {
  referenceUsed: boolean;
  userBanned: boolean;
  pendingExists: boolean;
  /** The firm's pending deposits, how many and their amount (minor units), for its bounds. */
  firmPending: { count: number; amountMinor: number };
}

/** A write of a new transaction: its id, or which of the money invariants refused it. */
export type InsertResult =
  | { ok: true; id: number }
  | { ok: false; conflict: "reference" | "one_pending" | "pending_bound" };

/**
 * A write that failed: it certainly wrote nothing, or its outcome is unknown (a batch given up on
 * after its timeout runs on in PostgreSQL and may still commit; a connection lost mid-commit). The
 * cause is kept for the answer and the log.
 */
export type WriteFailure = { ok: false; failed: "nothing_written" | "outcome_unknown"; cause: unknown };
