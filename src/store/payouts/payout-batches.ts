/**
 * Payout batches and their attempts (migration 20261206T1000): waiting withdrawals read, a batch
 * written whole with its attempts, and its stages moved, each with its audit entry. Every move is a
 * conditional UPDATE (`WHERE stage = …`): of two operators marking one batch sent at the same
 * moment, or approving and cancelling it, one moves it and the other is told its stage.
 */
import { type Kysely, type Selectable, sql, type Transaction } from "kysely";
import { writeAudit } from "../audited.js";
import type { Database, PayoutAttemptTable, PayoutBatchStage, PayoutBatchTable } from "../schema.js";
import { deadlock, payoutViolation } from "./payout-errors.js";
import { clearFlag, type FlagClear, type FlagClearing } from "./payout-flags.js";

export type PayoutBatchRow = Selectable<PayoutBatchTable>;
export type PayoutAttemptRow = Selectable<PayoutAttemptTable>;

/** A pending withdrawal that no live or paid attempt holds, with what the batching judges. */
export interface WaitingRow {
  id: number;
  firm_id: number;
  reference: string;
  amount: number;
  method: string | null;
  first_name: string;
  middle_name: string | null;
  last_name: string;
  iban: string | null;
  created_at: number;
  firm_name: string;
  firm_active: number;
  firm_sandbox: number;
  paying_by: string | null;
  /** The last ended attempt (returned, failed), for the reason operators check before batching again. */
  last_stage: string | null;
  last_reason: string | null;
}

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
  /** Why a second operator must approve, as payouts/rules.ts keeps it (`storedSecondRule`). */
  /**
   * Why a second operator must approve, judged with what the maker batched in the day so far
   * (`day`): read in the batch's own database transaction, one batching of a maker's day at a time
   * (a PostgreSQL advisory lock on the day's key), so two at once cannot both pass the day's rule.
   * Null: no second operator.
   */
  secondReasonFor(batchedToday: number): string | null;
  day: { who: DayOf; since: number };
  actor: string;
  now: number;
  attempts: readonly NewAttempt[];
}

export type BatchWriteResult =
  | { ok: true; batch: PayoutBatchRow }
  /** Another batching (or a decision, or a payout mark) took one of these withdrawals meanwhile. */
  | { ok: false; reason: "taken_meanwhile" };

export type StageMove =
  | { ok: true; batch: PayoutBatchRow }
  | { ok: false; reason: "not_found" }
  | { ok: false; reason: "stage"; stage: PayoutBatchStage }
  | { ok: false; reason: "same_operator" };

/** A flagged attempt, with its withdrawal's merchant reference. */
export type FlaggedAttemptRow = PayoutAttemptRow & { reference: string };

const LIVE_OR_PAID = ["second_approval", "batched", "sent", "paid"] as const;

export interface PayoutBatchRepository {
  /** Pending withdrawals of these firms that no live or paid attempt holds, oldest first (after `afterId`). */
  waiting(firmIds: readonly number[], limit: number, afterId?: number): Promise<WaitingRow[]>;
  create(batch: NewBatch): Promise<BatchWriteResult>;
  /**
   * What one operator (`actor`), or every actor whose name begins with `prefix`, batched since
   * `since` (batches not cancelled), minor units.
   */
  batchedBy(who: DayOf, since: number): Promise<number>;
  get(id: number): Promise<PayoutBatchRow | undefined>;
  attemptsOf(batchId: number): Promise<PayoutAttemptRow[]>;
  list(filter: { stage?: PayoutBatchStage; limit: number }): Promise<PayoutBatchRow[]>;
  approve(id: number, actor: string, now: number): Promise<StageMove>;
  markSent(id: number, actor: string, now: number): Promise<StageMove>;
  cancel(id: number, actor: string, now: number, note: string | null): Promise<StageMove>;
  /** A file of the batch was downloaded: audited, so the console can say one came after sending. */
  fileTaken(id: number, format: string, actor: string, now: number): Promise<void>;
  /** The batch's attempts with each withdrawal's merchant reference, for its file. */
  fileRowsOf(batchId: number): Promise<(PayoutAttemptRow & { reference: string })[]>;
  /** The attempts of these withdrawals, newest first. */
  attemptsOfTransactions(ids: readonly number[]): Promise<PayoutAttemptRow[]>;
  /** Attempts carrying a flag, across batches, newest first (payout_attempts_flag_idx). */
  flagged(limit: number): Promise<FlaggedAttemptRow[]>;
  /** An operator checked an ended attempt's flag: cleared, if it is still `flag`, with its audit entry. */
  clearFlag(c: FlagClearing): Promise<FlagClear>;
  /** The http payout channel's code of each of these accounts that has one. */
  payoutChannelsOf(accountIds: readonly number[]): Promise<Map<number, string>>;
}

/** Whose day a batch counts in: one actor's, or every actor's of a prefix (the admin token's). */
export type DayOf = { actor: string } | { prefix: string };

function batchedByIn(q: Kysely<Database> | Transaction<Database>, who: DayOf, since: number) {
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

export function createPayoutBatchRepository(
  db: Kysely<Database>,
  dialect: "sqlite" | "postgres",
): PayoutBatchRepository {
  return {
    waiting: (firmIds, limit, afterId = 0) => waitingWithdrawals(db, firmIds, limit, afterId),
    create: (batch) => createBatch(db, dialect, batch),

    batchedBy: (who, since) => batchedByIn(db, who, since),

    get: (id) => db.selectFrom("payout_batches").selectAll().where("id", "=", id).executeTakeFirst(),

    attemptsOf: (batchId) =>
      db.selectFrom("payout_attempts").selectAll().where("batch_id", "=", batchId).orderBy("id").execute(),

    list({ stage, limit }) {
      let q = db.selectFrom("payout_batches").selectAll().orderBy("id", "desc").limit(limit);
      if (stage) q = q.where("stage", "=", stage);
      return q.execute();
    },

    approve: (id, actor, now) =>
      moveBatch(db, id, actor, now, {
        from: ["second_approval"],
        to: "batched",
        action: "payout_batch.approve",
      }),
    markSent: (id, actor, now) =>
      moveBatch(db, id, actor, now, { from: ["batched"], to: "sent", action: "payout_batch.sent" }),
    cancel: (id, actor, now, note) =>
      moveBatch(db, id, actor, now, {
        from: ["second_approval", "batched"],
        to: "cancelled",
        action: "payout_batch.cancel",
        note,
      }),

    async fileTaken(id, format, actor, now) {
      await writeAudit(
        db,
        { actor, action: "payout_batch.file", at: now },
        "payout_batch",
        String(id),
        null,
        {
          format,
        },
      );
    },

    fileRowsOf: (batchId) =>
      db
        .selectFrom("payout_attempts as a")
        .innerJoin("transactions as t", "t.id", "a.transaction_id")
        .selectAll("a")
        .select("t.reference")
        .where("a.batch_id", "=", batchId)
        .orderBy("a.id")
        .execute(),

    async attemptsOfTransactions(ids) {
      if (ids.length === 0) return [];
      return db
        .selectFrom("payout_attempts")
        .selectAll()
        .where("transaction_id", "in", ids)
        .orderBy("id", "desc")
        .execute();
    },

    flagged: (limit) =>
      db
        .selectFrom("payout_attempts as a")
        .innerJoin("transactions as t", "t.id", "a.transaction_id")
        .selectAll("a")
        .select("t.reference")
        .where("a.flag", "is not", null)
        .orderBy("a.id", "desc")
        .limit(limit)
        .execute(),

    clearFlag: (c) => clearFlag(db, c),

    async payoutChannelsOf(accountIds) {
      if (accountIds.length === 0) return new Map();
      const rows = await db
        .selectFrom("payment_accounts as p")
        .innerJoin("channels as c", "c.id", "p.channel_id")
        .select(["p.id", "c.code"])
        .where("p.id", "in", accountIds)
        .where("c.kind", "=", "http")
        .execute();
      return new Map(rows.map((r) => [Number(r.id), r.code]));
    },
  };
}

function waitingWithdrawals(
  db: Kysely<Database>,
  firmIds: readonly number[],
  limit: number,
  afterId: number,
) {
  if (firmIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom("transactions as t")
    .innerJoin("firms as f", "f.id", "t.firm_id")
    .leftJoin("payout_claims as c", "c.transaction_id", "t.id")
    .select([
      "t.id",
      "t.firm_id",
      "t.reference",
      "t.amount",
      "t.method",
      "t.first_name",
      "t.middle_name",
      "t.last_name",
      "t.iban",
      "t.created_at",
      "f.name as firm_name",
      "f.active as firm_active",
      "f.sandbox as firm_sandbox",
      "c.operator as paying_by",
    ])
    .select((eb) => [
      eb
        .selectFrom("payout_attempts as a")
        .select("a.stage")
        .whereRef("a.transaction_id", "=", "t.id")
        .orderBy("a.id", "desc")
        .limit(1)
        .as("last_stage"),
      eb
        .selectFrom("payout_attempts as a")
        .select("a.reason")
        .whereRef("a.transaction_id", "=", "t.id")
        .orderBy("a.id", "desc")
        .limit(1)
        .as("last_reason"),
    ])
    .where("t.status", "=", "pending")
    .where("t.type", "=", "withdrawal")
    .where("t.firm_id", "in", firmIds)
    .where("t.id", ">", afterId)
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom("payout_attempts as l")
            .select("l.id")
            .whereRef("l.transaction_id", "=", "t.id")
            .where("l.stage", "in", LIVE_OR_PAID),
        ),
      ),
    )
    .orderBy("t.id")
    .limit(limit)
    .execute() as Promise<WaitingRow[]>;
}

/**
 * The batch and its attempts in one database transaction, withdrawals in id order (two batchings
 * of overlapping withdrawals lock them in the same order). Anything taken meanwhile (a live attempt
 * of another batch, a decision, a payout mark) undoes the whole batch; the service reads again.
 */
async function createBatch(
  db: Kysely<Database>,
  dialect: "sqlite" | "postgres",
  b: NewBatch,
): Promise<BatchWriteResult> {
  const attempts = [...b.attempts].sort((x, y) => x.transactionId - y.transactionId);
  const total = attempts.reduce((sum, a) => sum + a.amount, 0);
  try {
    return await db.transaction().execute(async (trx) => {
      // SQLite runs one transaction at a time; PostgreSQL orders a maker's batchings by this lock.
      const dayKey = "actor" in b.day.who ? `actor:${b.day.who.actor}` : `prefix:${b.day.who.prefix}`;
      if (dialect === "postgres")
        await sql`SELECT pg_advisory_xact_lock(hashtext(${`payout-day:${dayKey}`}))`.execute(trx);
      const secondReason = b.secondReasonFor(await batchedByIn(trx, b.day.who, b.day.since));
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
      return { ok: true as const, batch };
    });
  } catch (err) {
    if (payoutViolation(err) || deadlock(err)) return { ok: false, reason: "taken_meanwhile" };
    throw err;
  }
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

interface Move {
  from: PayoutBatchStage[];
  to: PayoutBatchStage;
  action: string;
  note?: string | null;
}

/** Moves a batch and its attempts from one of `from` to `to`, with the audit entry. */
function moveBatch(
  db: Kysely<Database>,
  id: number,
  actor: string,
  now: number,
  move: Move,
): Promise<StageMove> {
  return db.transaction().execute(async (trx): Promise<StageMove> => {
    // The stage read is the one moved from (the audit's `before`); the update is conditional on
    // it, so a move made meanwhile by another is seen, never overwritten.
    const current = await trx
      .selectFrom("payout_batches")
      .select("stage")
      .where("id", "=", id)
      .executeTakeFirst();
    if (!current || !move.from.includes(current.stage)) return whyNotMoved(trx, id, actor, move);
    let update = trx
      .updateTable("payout_batches")
      .set({ stage: move.to, updated_at: now, ...stamp(move.to, actor, now) })
      .where("id", "=", id)
      .where("stage", "=", current.stage);
    if (move.to === "batched") update = update.where("created_by", "<>", actor);
    const batch = await update.returningAll().executeTakeFirst();
    if (!batch) return whyNotMoved(trx, id, actor, move);
    await trx
      .updateTable("payout_attempts")
      .set({
        stage: move.to === "sent" ? "sent" : move.to === "cancelled" ? "cancelled" : "batched",
        updated_at: now,
        ...(move.to === "sent" ? { sent_at: now } : {}),
        ...(move.to === "cancelled" ? { ended_at: now } : {}),
      })
      .where("batch_id", "=", id)
      .where("stage", "in", ["second_approval", "batched"])
      .execute();
    await writeAudit(
      trx,
      { actor, action: move.action, at: now },
      "payout_batch",
      String(id),
      { stage: current.stage },
      {
        stage: move.to,
        ...(move.note ? { note: move.note } : {}),
      },
    );
    return { ok: true, batch };
  });
}

function stamp(to: PayoutBatchStage, actor: string, now: number) {
  if (to === "batched") return { approved_by: actor, approved_at: now };
  if (to === "sent") return { sent_by: actor, sent_at: now };
  if (to === "cancelled") return { cancelled_by: actor };
  return {};
}

async function whyNotMoved(
  trx: Transaction<Database>,
  id: number,
  actor: string,
  move: Move,
): Promise<StageMove> {
  const now = await trx
    .selectFrom("payout_batches")
    .select(["stage", "created_by"])
    .where("id", "=", id)
    .executeTakeFirst();
  if (!now) return { ok: false, reason: "not_found" };
  if (move.to === "batched" && move.from.includes(now.stage) && now.created_by === actor)
    return { ok: false, reason: "same_operator" };
  return { ok: false, reason: "stage", stage: now.stage };
}
