/**
 * Payout batches and their attempts (migration 20261206T1000): waiting withdrawals read, a batch
 * written whole with its attempts, and its stages moved, each with its audit entry. Every move is a
 * conditional UPDATE (`WHERE stage = …`): of two operators marking one batch sent at the same
 * moment, or approving and cancelling it, one moves it and the other is told its stage.
 */
import { setTimeout as sleep } from "node:timers/promises";
import type { Kysely, Selectable, Transaction } from "kysely";
import { writeAudit } from "../audited.js";
import type { Database, PayoutAttemptTable, PayoutBatchStage, PayoutBatchTable } from "../schema.js";
import {
  type BatchWriteResult,
  batchedByIn,
  createBatch,
  type DayOf,
  type NewBatch,
} from "./payout-batch-create.js";
import { deadlock } from "./payout-errors.js";
import { clearFlag, type FlagClear, type FlagClearing } from "./payout-flags.js";
import { lockFirmBalances, type RoomOf, roomsOf } from "./payout-guard.js";
import { postSent } from "./payout-postings.js";

export type PayoutBatchRow = Selectable<PayoutBatchTable>;
export type PayoutAttemptRow = Selectable<PayoutAttemptTable>;
export type { BatchWriteResult, DayOf, NewAttempt, NewBatch } from "./payout-batch-create.js";

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
  /** What each firm's payouts may still take (the ledger's guard), read now, outside any batching. */
  rooms(firmIds: readonly number[]): Promise<RoomOf[]>;
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

export function createPayoutBatchRepository(
  db: Kysely<Database>,
  dialect: "sqlite" | "postgres",
): PayoutBatchRepository {
  return {
    waiting: (firmIds, limit, afterId = 0) => waitingWithdrawals(db, firmIds, limit, afterId),
    create: (batch) => createBatch(db, dialect, batch),
    rooms: (firmIds) => roomsOf(db, firmIds),

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
    markSent: (id, actor, now) => sendBatch(db, dialect, id, actor, now),
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

interface Move {
  from: PayoutBatchStage[];
  to: PayoutBatchStage;
  action: string;
  note?: string | null;
}

/** How many times a send that PostgreSQL ended for a deadlock is run again. */
const SEND_TRIES = 5;

/**
 * Marks a batch sent, each payout's sending posted with it. Those postings, one per payout, add to
 * the ledger's counters of its firm and the firm's transit on the shards their ids pick: another
 * transaction of several postings on the same firm (a statement import paying its payouts) may meet
 * them in the other order, and PostgreSQL ends one of the two. The move is conditional on the
 * batch's stage, so it is simply run again; and the sends of one firm's batches take its guard lock
 * (payout-guard.ts) first, so two of them never meet so.
 */
async function sendBatch(
  db: Kysely<Database>,
  dialect: "sqlite" | "postgres",
  id: number,
  actor: string,
  now: number,
): Promise<StageMove> {
  const move: Move = { from: ["batched"], to: "sent", action: "payout_batch.sent" };
  for (let tries = 1; ; tries++) {
    try {
      return await moveBatch(db, id, actor, now, move, async (trx) => {
        const firms = await trx
          .selectFrom("payout_attempts")
          .select("firm_id")
          .distinct()
          .where("batch_id", "=", id)
          .execute();
        await lockFirmBalances(
          trx,
          dialect,
          firms.map((f) => Number(f.firm_id)),
        );
      });
    } catch (err) {
      if (!deadlock(err) || tries >= SEND_TRIES) throw err;
      await sleep(tries * 10 + Math.floor(Math.random() * 20));
    }
  }
}

/**
 * Moves a batch and its attempts from one of `from` to `to`, with the audit entry; `first` runs at
 * the start of its transaction (the locks a send takes).
 */
function moveBatch(
  db: Kysely<Database>,
  id: number,
  actor: string,
  now: number,
  move: Move,
  first?: (trx: Transaction<Database>) => Promise<void>,
): Promise<StageMove> {
  return db.transaction().execute(async (trx): Promise<StageMove> => {
    await first?.(trx);
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
    const moved = await trx
      .updateTable("payout_attempts")
      .set({
        stage: move.to === "sent" ? "sent" : move.to === "cancelled" ? "cancelled" : "batched",
        updated_at: now,
        ...(move.to === "sent" ? { sent_at: now } : {}),
        ...(move.to === "cancelled" ? { ended_at: now } : {}),
      })
      .where("batch_id", "=", id)
      .where("stage", "in", ["second_approval", "batched"])
      .returning(["id", "firm_id", "amount"])
      .execute();
    // Sent: each firm's money leaves its balance into transit, with the move (payout-postings.ts).
    if (move.to === "sent") await postSent(trx, moved, actor, now);
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
