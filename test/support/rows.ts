import type { Insertable } from "kysely";
import type { Store } from "../../src/store/engine/open.js";
import type { Database } from "../../src/store/schema.js";

/** Rows written straight into a store, for tests of the store layer below the HTTP API. */
export async function insertFirm(
  store: Store,
  now: number,
  values: Partial<Insertable<Database["firms"]>> = {},
): Promise<number> {
  const row = await store.db
    .insertInto("firms")
    .values({
      provider_id: null,
      name: "F",
      api_key: `k-${now}-${Math.random().toString(36).slice(2)}`,
      secret_sealed: "x",
      webhook_url: null,
      legacy_http: 0,
      callback_middle_name: 0,
      deposit_min: null,
      deposit_max: null,
      deposits_open: 1,
      withdrawals_open: 1,
      active: 1,
      rate_limit_per_second: 100,
      // Fixtures seed thousands of pending deposits for one firm: no bound of pending deposits
      // (test/store/firm-pending.test.ts gives the bounds it tests).
      max_pending_count: null,
      max_pending_amount: null,
      created_at: now,
      updated_at: now,
      ...values,
    })
    .returning("id")
    .executeTakeFirstOrThrow();
  return Number(row.id);
}

export async function insertAccount(
  store: Store,
  now: number,
  dailyCap: number | null = null,
): Promise<number> {
  const row = await store.db
    .insertInto("payment_accounts")
    .values({
      bank_name: "B",
      holder_name: "H",
      iban: "TR000000000000000000000001",
      min_amount: null,
      max_amount: null,
      active: 1,
      channel_id: null,
      bank_code: null,
      daily_cap: dailyCap,
      created_at: now,
      updated_at: now,
    })
    .returning("id")
    .executeTakeFirstOrThrow();
  return Number(row.id);
}

/** A pending deposit on the account, as intake writes it; the reference doubles as the user id. */
export function depositRow(
  d: { firmId: number; accountId: number; amount: number; reference: string },
  now: number,
): Insertable<Database["transactions"]> {
  return {
    firm_id: d.firmId,
    reference: d.reference,
    type: "deposit",
    status: "pending",
    amount: d.amount,
    method: "fast",
    first_name: "Ali",
    last_name: "Veli",
    middle_name: null,
    username: "ali",
    user_id: d.reference,
    national_id_masked: null,
    national_id_sealed: null,
    bank_code: "B",
    iban: null,
    iban_valid: null,
    account_id: d.accountId,
    assigned_bank_name: "B",
    assigned_holder_name: "H",
    assigned_iban: "TR000000000000000000000001",
    callback_url: "https://hooks.example/cb",
    created_at: now,
    updated_at: now,
    routing_log: null,
  };
}

/**
 * A withdrawal's payout, sent at `now` in a batch of its own: the batch and its one attempt of
 * 100.00 by FAST to Ali Veli. Answers the attempt's id.
 */
export async function insertSentPayout(
  store: Store,
  p: { transactionId: number; firmId: number; accountId: number; paymentId: string },
  now: number,
): Promise<number> {
  const batch = await store.db
    .insertInto("payout_batches")
    .values({
      account_id: p.accountId,
      firm_id: p.firmId,
      stage: "sent",
      payouts: 1,
      total: 10_000,
      second_reason: null,
      created_by: "t",
      created_at: now,
      sent_by: "t",
      sent_at: now,
      updated_at: now,
    })
    .returning("id")
    .executeTakeFirstOrThrow();
  const attempt = await store.db
    .insertInto("payout_attempts")
    .values({
      transaction_id: p.transactionId,
      batch_id: Number(batch.id),
      firm_id: p.firmId,
      account_id: p.accountId,
      payment_id: p.paymentId,
      amount: 10_000,
      payee_name: "Ali Veli",
      payee_iban: "TR330006100519786457841326",
      method: "FAST",
      stage: "sent",
      created_by: "t",
      created_at: now,
      sent_at: now,
      updated_at: now,
    })
    .returning("id")
    .executeTakeFirstOrThrow();
  return Number(attempt.id);
}
