/**
 * A batch written whole with its attempts (payout-batches.ts's `create`), under the two rules that
 * hold across instances: the maker's day (the two-person rule's `operator_day`) and the ledger's
 * guard (each firm's payouts within its room, payout-guard.ts). Both are read in the batch's own
 * database transaction after the locks that order their writers: the maker's day first, then the
 * firms' balances in id order (an approval takes only its firm's), so no two writers wait on each
 * other in a circle.
 */
import { type Kysely, type Selectable, sql, type Transaction } from "kysely";
import { writeAudit } from "../audited.js";
import type { Database, PayoutBatchTable } from "../schema.js";
import { deadlock, payoutViolation } from "./payout-errors.js";
import { lockFirmBalances, type Rooms, roomsByFirm, roomsOf } from "./payout-guard.js";

type PayoutBatchRow = Selectable<PayoutBatchTable>;

export interface NewAttempt {
  transactionId: number;
  firmId: number;
  paymentId: string;
  amount: number;
  payeeName: string;
  payeeIban: string;
  method: "FAST" | "EFT";
}

export interface NewBatch {
  accountId: number;
  firmId: number | null;
  /**
   * Why a second operator must approve (as payouts/rules.ts keeps it, `storedSecondRule`), judged
   * on the attempts written and what the maker batched in the day so far (`day`): read in the
   * batch's own database transaction, one batching of a maker's day at a time (a PostgreSQL
   * advisory lock on the day's key), so two at once cannot both pass the day's rule. Null: no
   * second operator.
   */
  secondReasonFor(batchedToday: number, written: readonly NewAttempt[]): string | null;
  /**
   * The attempts that fit their firms' rooms (the ledger's guard, payout-guard.ts), read again in
   * the batch's own transaction under the firms' locks: what another batching or an approval took
   * since the attempts were picked is seen here, and what no longer fits is left out.
   */
  admit(rooms: Rooms): readonly NewAttempt[];
  day: { who: DayOf; since: number };
  actor: string;
  now: number;
  attempts: readonly NewAttempt[];
}

export type BatchWriteResult =
  | { ok: true; batch: PayoutBatchRow }
  /** None of the attempts fits its firm's room any more (another batching or an approval took it). */
  | { ok: false; reason: "over_balance" }
  /** Another batching (or a decision, or a payout mark) took one of these withdrawals meanwhile. */
  | { ok: false; reason: "taken_meanwhile" };

/** Whose day a batch counts in: one actor's, or every actor's of a prefix (the admin token's). */
export type DayOf = { actor: string } | { prefix: string };

export function batchedByIn(q: Kysely<Database> | Transaction<Database>, who: DayOf, since: number) {
  return q
    .selectFrom("payout_batches")
    .select(sql<number>`COALESCE(SUM(total), 0)`.as("sum"))
    .where((eb) =>
      "actor" in who
        ? eb("created_by", "=", who.actor)
        : eb(sql`substr(created_by, 1, ${who.prefix.length})`, "=", who.prefix),
    )
    .where("created_at", ">=", since)
    .where("stage", "<>", "cancelled")
    .executeTakeFirstOrThrow()
    .then((row) => Number(row.sum));
}

/**
 * The batch and its attempts in one database transaction, withdrawals in id order (two batchings
 * of overlapping withdrawals lock them in the same order). Anything taken meanwhile (a live attempt
 * of another batch, a decision, a payout mark) undoes the whole batch; the service reads again.
 * What no longer fits its firm's room is left out; when nothing fits, nothing is written.
 */
export async function createBatch(
  db: Kysely<Database>,
  dialect: "sqlite" | "postgres",
  b: NewBatch,
): Promise<BatchWriteResult> {
  try {
    return await db.transaction().execute(async (trx): Promise<BatchWriteResult> => {
      // SQLite runs one transaction at a time; PostgreSQL orders a maker's batchings by this lock.
      const dayKey = "actor" in b.day.who ? `actor:${b.day.who.actor}` : `prefix:${b.day.who.prefix}`;
      if (dialect === "postgres")
        await sql`SELECT pg_advisory_xact_lock(hashtext(${`payout-day:${dayKey}`}))`.execute(trx);
      const firmIds = b.attempts.map((a) => a.firmId);
      await lockFirmBalances(trx, dialect, firmIds);
      const rooms = roomsByFirm(await roomsOf(trx, firmIds));
      const attempts = [...b.admit(rooms)].sort((x, y) => x.transactionId - y.transactionId);
      if (attempts.length === 0) return { ok: false, reason: "over_balance" };
      const batch = await insertBatch(trx, b, attempts);
      return { ok: true, batch };
    });
  } catch (err) {
    if (payoutViolation(err) || deadlock(err)) return { ok: false, reason: "taken_meanwhile" };
    throw err;
  }
}

async function insertBatch(
  trx: Transaction<Database>,
  b: NewBatch,
  attempts: readonly NewAttempt[],
): Promise<PayoutBatchRow> {
  const total = attempts.reduce((sum, a) => sum + a.amount, 0);
  const secondReason = b.secondReasonFor(await batchedByIn(trx, b.day.who, b.day.since), attempts);
  const stage = secondReason === null ? "batched" : "second_approval";
  const batch = await trx
    .insertInto("payout_batches")
    .values({
      account_id: b.accountId,
      firm_id: b.firmId,
      stage,
      payouts: attempts.length,
      total,
      second_reason: secondReason,
      created_by: b.actor,
      created_at: b.now,
      updated_at: b.now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  for (const a of attempts) await insertAttempt(trx, batch, a, b);
  await writeAudit(
    trx,
    { actor: b.actor, action: "payout_batch.create", at: b.now },
    "payout_batch",
    String(batch.id),
    null,
    {
      stage,
      payouts: attempts.length,
      total,
      account_id: b.accountId,
      second_reason: secondReason,
    },
  );
  return batch;
}

async function insertAttempt(trx: Transaction<Database>, batch: PayoutBatchRow, a: NewAttempt, b: NewBatch) {
  await trx
    .insertInto("payout_attempts")
    .values({
      transaction_id: a.transactionId,
      batch_id: batch.id,
      firm_id: a.firmId,
      account_id: b.accountId,
      payment_id: a.paymentId,
      amount: a.amount,
      payee_name: a.payeeName,
      payee_iban: a.payeeIban,
      method: a.method,
      stage: batch.stage === "second_approval" ? "second_approval" : "batched",
      created_by: b.actor,
      created_at: b.now,
      updated_at: b.now,
    })
    .execute();
  await writeAudit(
    trx,
    { actor: b.actor, action: "payout.batched", at: b.now },
    "transaction",
    String(a.transactionId),
    null,
    {
      batch: batch.id,
      payment_id: a.paymentId,
    },
  );
}
