/** A pending deposit or withdrawal as the queue lists it. */
export interface QueueRow {
  id: number;
  type: "deposit" | "withdrawal";
  created_at: string;
  amount: string;
  first_name: string;
  /** Only a valid one the merchant sent (the API's rules), else null. */
  middle_name?: string | null;
  last_name: string;
  username: string;
  user_id: string;
  firm_id: number;
  reference: string;
  assigned_bank_name: string | null;
  assigned_iban: string | null;
  iban: string | null;
  iban_valid: boolean | null;
  /** How the merchant asked for the payout to be sent: the operator pays it out that way. */
  method: string;
  /** Withdrawals: the operator paying it out now (the first to copy its fields), and since when. */
  paying_by?: string | null;
  paying_since?: string | null;
}
