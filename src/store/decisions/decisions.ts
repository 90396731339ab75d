import { type Kysely, sql, type Transaction } from "kysely";
import type { PostingDraft } from "../../domain/ledger.js";
import type { CallbackDraft } from "../callbacks/callbacks.js";
import { type ApprovalPostingFacts, approvalFacts } from "../ledger/approval-facts.js";
import { post } from "../ledger/ledger.js";
import { deadlock, payoutViolation } from "../payouts/payout-errors.js";
import { lockFirmBalances, type RoomOf, roomsOf } from "../payouts/payout-guard.js";
import type { Database } from "../schema.js";
import type { TransactionRow } from "../transactions/transactions.js";

export interface DecisionWrite {
  transactionId: number;
  status: "approved" | "rejected";
  amount: number;
  originalAmount: number | null;
  decidedBy: string;
  note: string | null;
  now: number;
  callback(decided: TransactionRow): CallbackDraft;
  /**
   * The approval's ledger posting (ledger/approval-posting.ts), written in this same database
   * transaction; null where the caller posts the money itself or nothing moves.
   */
  posting: ((decided: TransactionRow, facts: ApprovalPostingFacts) => PostingDraft | null) | null;
  /**
   * The ledger's guard (docs/payouts.md): a withdrawal's approval is refused (`over_balance`) when
   * its firm's room (balance, less its unsent batches, plus its overdraft) does not cover it, read
   * under the firm's lock in this decision's transaction. Only `decide` judges it: for an
   * operator's approval by hand; an admin's, a statement's or a channel's is never refused.
   */
  guardBalance?: boolean;
}

/** A decision written inside a larger database transaction (decideWithin). */
export type DecisionWithin =
  | { ok: true; tx: TransactionRow; callbackId: number }
  | { ok: false; reason: "not_found" | "not_pending" };

export type DecisionResult =
  | DecisionWithin
  /** The withdrawal is in a live payout batch: the bank's statement decides it (migration 20261206T1000). */
  | { ok: false; reason: "in_payout_batch" }
  /** `guardBalance`: the firm's room does not cover the withdrawal; what the room is made of. */
  | { ok: false; reason: "over_balance"; room: RoomOf };

/** A pending deposit past its provider's auto-cancel time, with what its callback needs. */
export type ExpiredDeposit = TransactionRow & {
  callback_middle_name: number;
  auto_cancel_minutes: number;
  /** The firm is a test firm (1): its deposits are in no operator's queue. */
  firm_sandbox: number;
};

export interface DecisionRepository {
  /**
   * Moves a pending transaction to its final status and queues its callback, in one database
   * transaction. Only a pending row moves (`WHERE status = 'pending'`): of two operators deciding at
   * the same moment, the second finds nothing to update and gets `not_pending`.
   */
  decide(write: DecisionWrite): Promise<DecisionResult>;
  /**
   * Rejects up to `limit` pending deposits whose provider's auto-cancel time has passed, each with
   * its callback, in one database transaction. On PostgreSQL the rows are locked with SKIP LOCKED,
   * so instances running this at once share the work instead of queueing on each other.
   */
  autoCancel(
    now: number,
    limit: number,
    plan: (tx: ExpiredDeposit) => Omit<DecisionWrite, "transactionId" | "now">,
  ): Promise<number[]>;
}

/**
 * The pending deposits whose provider's auto-cancel time has passed, oldest (lowest id: ids rise
 * with time) first. The pending rows are the ones walked, through their own index, whatever the
 * table holds: CROSS JOIN keeps SQLite from starting at the providers and walking each firm's whole
 * history (on the thread that every write waits for), and `+created_at`
 * from walking years of the date index for the few pending rows at its end. PostgreSQL orders the
 * joins itself and reads it alike.
 */
export function dueDeposits(dialect: "sqlite" | "postgres", now: number, limit: number) {
  const lock = dialect === "postgres" ? sql`FOR UPDATE OF t SKIP LOCKED` : sql``;
  return sql<ExpiredDeposit>`
    SELECT t.*, f.callback_middle_name, f.sandbox AS firm_sandbox, p.auto_cancel_minutes
    FROM transactions t
    CROSS JOIN firms f
    CROSS JOIN providers p
    WHERE f.id = t.firm_id AND p.id = f.provider_id
      AND t.status = 'pending' AND t.type = 'deposit' AND p.auto_cancel_minutes > 0
      AND +t.created_at <= CAST(${now} AS BIGINT) - p.auto_cancel_minutes * 60000
    ORDER BY t.id
    LIMIT ${limit}
    ${lock}`;
}

/**
 * A decision inside the caller's database transaction: the row moves only from pending, with its
 * audit entry and its callback's outbox row. Also used where a decision is part of a larger write
 * (a bank statement's line that approves a deposit, store/statements/statement-lines.ts).
 */
export async function decideWithin(
  trx: Transaction<Database>,
  write: DecisionWrite,
): Promise<DecisionWithin> {
  const decided = await trx
    .updateTable("transactions")
    .set({
      status: write.status,
      amount: write.amount,
      original_amount: write.originalAmount,
      decided_at: write.now,
      decided_by: write.decidedBy,
      decision_note: write.note,
      updated_at: write.now,
    })
    .where("id", "=", write.transactionId)
    .where("status", "=", "pending")
    .returningAll()
    .executeTakeFirst();
  if (!decided) {
    const exists = await trx
      .selectFrom("transactions")
      .select("id")
      .where("id", "=", write.transactionId)
      .executeTakeFirst();
    return { ok: false, reason: exists ? "not_pending" : "not_found" };
  }
  // Every decision is in the audit log, written in the same database transaction.
  await trx
    .insertInto("audit_log")
    .values({
      actor: write.decidedBy,
      action: write.status === "approved" ? "transaction.approve" : "transaction.reject",
      entity_type: "transaction",
      entity_id: String(decided.id),
      before_json: JSON.stringify({ status: "pending", amount: write.originalAmount ?? decided.amount }),
      after_json: JSON.stringify({ status: decided.status, amount: decided.amount, note: write.note }),
      at: write.now,
    })
    .execute();
  if (decided.status === "approved" && write.posting !== null) {
    const posting = write.posting(decided, await approvalFacts(trx, decided, write.now));
    if (posting !== null) await post(trx, posting);
  }
  const draft = write.callback(decided);
  const callback = await trx
    .insertInto("callbacks")
    .values({
      transaction_id: decided.id,
      firm_id: decided.firm_id,
      ...draft,
      status: "pending",
      step: 0,
      attempts: 0,
      next_attempt_at: write.now,
      lease_until: 0,
      created_at: write.now,
      updated_at: write.now,
    })
    .returning("id")
    .executeTakeFirstOrThrow();
  return { ok: true, tx: decided, callbackId: callback.id };
}

/**
 * A pending withdrawal's approval its firm's room does not cover, or null (a deposit, a rejection,
 * a firm not guarded, a transaction no longer pending: the decision itself says so). The firm's
 * lock is taken before the room is read, so a batching or another approval of the firm on another
 * instance is either seen whole or waits for this one (store/payouts/payout-guard.ts).
 */
async function overBalance(
  trx: Transaction<Database>,
  dialect: "sqlite" | "postgres",
  write: DecisionWrite,
): Promise<DecisionResult | null> {
  if (write.status !== "approved") return null;
  const tx = await trx
    .selectFrom("transactions")
    .select(["firm_id", "type", "status"])
    .where("id", "=", write.transactionId)
    .executeTakeFirst();
  if (tx?.type !== "withdrawal" || tx.status !== "pending") return null;
  await lockFirmBalances(trx, dialect, [tx.firm_id]);
  const [room] = await roomsOf(trx, [tx.firm_id]);
  if (!room || room.room === null || write.amount <= room.room) return null;
  return { ok: false, reason: "over_balance", room };
}

/** How many times a decision PostgreSQL ended in a deadlock is made again before it fails. */
const DECISION_TRIES = 3;

export function createDecisionRepository(
  db: Kysely<Database>,
  dialect: "sqlite" | "postgres",
): DecisionRepository {
  return {
    async decide(write) {
      for (let tries = 1; ; tries++) {
        try {
          return await db.transaction().execute(async (trx): Promise<DecisionResult> => {
            const over = write.guardBalance ? await overBalance(trx, dialect, write) : null;
            return over ?? decideWithin(trx, write);
          });
        } catch (err) {
          if (payoutViolation(err) === "payout_in_batch") return { ok: false, reason: "in_payout_batch" };
          // A statement's batch deciding several of the firm's deposits in one transaction takes the
          // ledger's rows and the firm's in an order of its own: should PostgreSQL end a cycle by
          // failing this side, the whole decision, rolled back, is made again.
          if (!deadlock(err) || tries >= DECISION_TRIES) throw err;
        }
      }
    },

    autoCancel(now, limit, plan) {
      return db.transaction().execute(async (trx) => {
        const due = await dueDeposits(dialect, now, limit).execute(trx);
        const cancelled: number[] = [];
        for (const row of due.rows) {
          const result = await decideWithin(trx, { ...plan(row), transactionId: row.id, now });
          if (result.ok) cancelled.push(row.id);
        }
        return cancelled;
      });
    },
  };
}
