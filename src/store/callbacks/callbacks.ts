import { type Kysely, type QueryCreator, type Selectable, sql } from "kysely";
import type { AuditEntry } from "../audited.js";
import { type CallbackAttemptTable, type CallbackTable, type Database, MAX_INTEGER_ID } from "../schema.js";
import { redeliverCallback, redeliverFailedSince } from "./redelivery.js";

export type CallbackRow = Selectable<CallbackTable>;
export type CallbackAttemptRow = Selectable<CallbackAttemptTable>;

/** The callback row a decision writes, built by the caller from the decided transaction. */
export interface CallbackDraft {
  event: string;
  url: string;
  origin: string;
  payload: string;
  hash_input: string;
}

/** What a worker needs to send a claimed callback. */
export type ClaimedCallback = Pick<
  CallbackRow,
  | "id"
  | "transaction_id"
  | "firm_id"
  | "event"
  | "url"
  | "origin"
  | "payload"
  | "hash_input"
  | "step"
  | "attempts"
  | "claimed_attempt"
  | "schedule_version"
>;

export interface AttemptRecord {
  callbackId: number;
  owner: string;
  /** This attempt's number: the claim's (`claimed_attempt`). */
  attempt: number;
  /**
   * The attempts recorded when the row was claimed: the numbers between it and `attempt` are
   * attempts a worker that stopped had under way or about to go out, recorded as interrupted.
   */
  recordedBefore: number;
  startedAt: number;
  durationMs: number;
  httpStatus: number | null;
  error: string | null;
  excerpt: string | null;
  outcome: "delivered" | "retry" | "failed";
  /** For a retry: when the next attempt is due. */
  nextAttemptAt: number | null;
  /** A short account of the result, kept on the callback for lists. */
  summary: string;
  now: number;
  /** The schedule version the row had when this attempt's worker claimed it. */
  scheduleVersion: number;
}

export interface CallbackFilter {
  status?: CallbackRow["status"];
  firmId?: number;
  transactionId?: number;
  limit?: number;
}

export interface CallbackRepository {
  /**
   * Leases up to `limit` due callbacks to `owner` until `leaseUntil`, skipping rows another worker
   * holds (SKIP LOCKED on PostgreSQL) and receivers this worker is already busy with. A lease that
   * runs out (its worker died) makes the row due again.
   */
  claimDue(opts: {
    now: number;
    leaseUntil: number;
    owner: string;
    limit: number;
    /** At most this many rows of one receiver origin. */
    perOrigin: number;
    excludeOrigins: readonly string[];
    /** Receivers that answer slowly: at most `perSlowOrigin` rows each. */
    slowOrigins?: readonly string[];
    perSlowOrigin?: number;
  }): Promise<ClaimedCallback[]>;
  /**
   * Frees every lease. Only for the embedded store at start: its exclusive lock means no other
   * process can hold one, so every lease left is from a process that died, and need not run out.
   */
  releaseAllLeases(): Promise<number>;
  /**
   * The heartbeat: moves the lease of those of `ids` that `owner` still holds to `leaseUntil`, in
   * one statement, and says which they were.
   */
  renewLeases(ids: readonly number[], owner: string, leaseUntil: number): Promise<number[]>;
  /** Gives back a claimed row without an attempt (its receiver was busy), and its claim's number. */
  release(id: number, owner: string): Promise<void>;
  /** Stores one attempt and what follows from it, in one database transaction. */
  recordAttempt(record: AttemptRecord): Promise<void>;
  get(id: number): Promise<CallbackRow | undefined>;
  /** How many deliveries were made at or after `since` (epoch ms), through their own index. */
  countDeliveredSince(since: number): Promise<number>;
  /**
   * Pending callbacks whose receiver has failed them since they were (re)scheduled: being retried.
   * By `step`, not `attempts`: sending one again starts a fresh schedule (step 0) and keeps the
   * attempts already made, and a callback an operator sends again is not failing.
   */
  countRetrying(): Promise<number>;
  /**
   * Callbacks still owed: pending, and failed for good (until redelivered), through the status
   * index; the metrics count them all. With `failedCap`, the failed ones are counted no further
   * than one past it (so that more than the cap is told from the cap itself): they add up over
   * the years (a merchant whose receiver is gone for months), and the console's summary, read
   * every few seconds, needs no more.
   */
  countOpen(failedCap?: number): Promise<{ pending: number; failed: number }>;
  attempts(callbackId: number): Promise<CallbackAttemptRow[]>;
  list(filter: CallbackFilter): Promise<CallbackRow[]>;
  /** Sends a callback again with a fresh schedule, logged (redelivery.ts). */
  redeliver(callbackId: number, audit: AuditEntry): Promise<CallbackRow | undefined>;
  /** Every callback that failed at or after `since` again, logged as one entry; their ids. */
  redeliverFailedSince(since: number, audit: AuditEntry): Promise<number[]>;
}

export function createCallbackRepository(
  db: Kysely<Database>,
  dialect: "sqlite" | "postgres",
): CallbackRepository {
  return {
    claimDue: (args) => claimDue(db, dialect, args),

    async releaseAllLeases() {
      const result = await db
        .updateTable("callbacks")
        .set({ lease_until: 0, lease_owner: null })
        .where("lease_until", ">", 0)
        .executeTakeFirst();
      return Number(result.numUpdatedRows);
    },

    async renewLeases(ids, owner, leaseUntil) {
      if (ids.length === 0) return [];
      const rows = await db
        .updateTable("callbacks")
        .set({ lease_until: leaseUntil })
        .where("id", "in", [...ids])
        .where("lease_owner", "=", owner)
        .returning("id")
        .execute();
      return rows.map((r) => r.id);
    },

    async release(id, owner) {
      await db
        .updateTable("callbacks")
        .set((eb) => ({ lease_until: 0, lease_owner: null, claimed_attempt: eb("claimed_attempt", "-", 1) }))
        .where("id", "=", id)
        .where("lease_owner", "=", owner)
        .execute();
    },

    recordAttempt: (r) => recordAttempt(db, dialect, r),

    get(id) {
      return db.selectFrom("callbacks").selectAll().where("id", "=", id).executeTakeFirst();
    },

    async countOpen(failedCap) {
      if (failedCap !== undefined) {
        const [pending, failed] = await Promise.all([
          db
            .selectFrom("callbacks")
            .select((eb) => eb.fn.countAll<number>().as("n"))
            .where("status", "=", "pending")
            .executeTakeFirstOrThrow(),
          db
            .selectFrom(
              db
                .selectFrom("callbacks")
                .select("id")
                .where("status", "=", "failed")
                .limit(failedCap + 1)
                .as("f"),
            )
            .select((eb) => eb.fn.countAll<number>().as("n"))
            .executeTakeFirstOrThrow(),
        ]);
        return { pending: Number(pending.n), failed: Number(failed.n) };
      }
      const rows = await db
        .selectFrom("callbacks")
        .select(["status", (eb) => eb.fn.countAll<number>().as("count")])
        .where("status", "in", ["pending", "failed"])
        .groupBy("status")
        .execute();
      const of = (s: string) => Number(rows.find((r) => r.status === s)?.count ?? 0);
      return { pending: of("pending"), failed: of("failed") };
    },
    async countRetrying() {
      const row = await db
        .selectFrom("callbacks")
        .select((eb) => eb.fn.countAll<number>().as("count"))
        .where("status", "=", "pending")
        .where("step", ">", 0)
        .executeTakeFirst();
      return Number(row?.count ?? 0);
    },
    async countDeliveredSince(since) {
      const row = await db
        .selectFrom("callbacks")
        .select((eb) => eb.fn.countAll<number>().as("count"))
        // Deliveries made since then, by their own index (one sent again afterwards counts too:
        // it was delivered). Not by status: SQLite's planner, knowing most are delivered, would walk
        // every delivered callback by the status index.
        .where("delivered_at", ">=", since)
        .executeTakeFirst();
      return Number(row?.count ?? 0);
    },

    attempts(callbackId) {
      return db
        .selectFrom("callback_attempts")
        .selectAll()
        .where("callback_id", "=", callbackId)
        .orderBy("attempt")
        .orderBy("id")
        .execute();
    },

    async list(filter) {
      if (filter.firmId !== undefined && filter.firmId > MAX_INTEGER_ID) return [];
      let q = db.selectFrom("callbacks").selectAll();
      // A literal (one of three words): the planner then knows how few are failed.
      if (filter.status !== undefined) q = q.where("status", "=", sql.lit(filter.status));
      if (filter.firmId !== undefined) q = q.where("firm_id", "=", filter.firmId);
      if (filter.transactionId !== undefined) q = q.where("transaction_id", "=", filter.transactionId);
      // Failed ones by when they failed, the latest first: the order callbacks_status_idx (status,
      // failed_at) keeps, so a page reads a page; by id, every failed callback of years would be sorted.
      if (filter.status === "failed") q = q.orderBy("failed_at", "desc");
      return q
        .orderBy("id", "desc")
        .limit(Math.min(filter.limit ?? 100, 1000))
        .execute();
    },

    redeliver: (callbackId, audit) => redeliverCallback(db, callbackId, audit),
    redeliverFailedSince: (since, audit) => redeliverFailedSince(db, since, audit),
  };
}

/**
 * Leases the oldest due callbacks to `owner`, at most `perOrigin` per receiver (`perSlowOrigin` for
 * slow ones), so one receiver's backlog cannot fill a claim.
 */
async function claimDue(
  db: Kysely<Database>,
  dialect: "sqlite" | "postgres",
  {
    now,
    leaseUntil,
    owner,
    limit,
    perOrigin,
    excludeOrigins,
    slowOrigins = [],
    perSlowOrigin = 1,
  }: Parameters<CallbackRepository["claimDue"]>[0],
): Promise<ClaimedCallback[]> {
  const lock = dialect === "postgres" ? sql`FOR UPDATE SKIP LOCKED` : sql``;
  const skipOrigins =
    excludeOrigins.length === 0
      ? sql``
      : sql`AND origin NOT IN (${sql.join(excludeOrigins.map((o) => sql`${o}`))})`;
  const cap =
    slowOrigins.length === 0
      ? sql`${perOrigin}`
      : // Typed, for PostgreSQL: untyped parameters in a CASE would be text, compared to a bigint.
        sql`CASE WHEN origin IN (${sql.join(slowOrigins.map((o) => sql`${o}`))}) THEN CAST(${perSlowOrigin} AS INTEGER) ELSE CAST(${perOrigin} AS INTEGER) END`;
  const larger = dialect === "postgres" ? sql`GREATEST` : sql`MAX`;
  // The oldest due rows (locked, skipping rows another worker holds), then at most `perOrigin` of
  // them per receiver (`perSlowOrigin` for slow ones). Rows looked at but not taken are unlocked
  // when the statement ends. Each is claimed for the attempt after both the recorded ones and any
  // a stopped worker had claimed.
  const result = await sql<ClaimedCallback>`
    UPDATE callbacks SET lease_until = ${leaseUntil}, lease_owner = ${owner},
      claimed_attempt = ${larger}(attempts, claimed_attempt) + 1
    WHERE id IN (
      SELECT id FROM (
        SELECT id, origin, next_attempt_at,
               ROW_NUMBER() OVER (PARTITION BY origin ORDER BY next_attempt_at, id) AS nth
        FROM (
          SELECT id, origin, next_attempt_at FROM callbacks
          WHERE status = 'pending' AND next_attempt_at <= ${now} AND lease_until < ${now} ${skipOrigins}
          ORDER BY next_attempt_at
          LIMIT ${Math.max(limit * 4, 200)}
          ${lock}) AS due
      ) AS ranked
      WHERE nth <= ${cap}
      ORDER BY next_attempt_at
      LIMIT ${limit})
    RETURNING id, transaction_id, firm_id, event, url, origin, payload, hash_input, step, attempts,
      claimed_attempt, schedule_version`.execute(db);
  return result.rows;
}

/** Records an attempt and moves the callback's schedule on, if this worker still holds it. */
async function recordAttempt(
  db: Kysely<Database>,
  dialect: "sqlite" | "postgres",
  r: AttemptRecord,
): Promise<void> {
  const attempt = {
    callback_id: r.callbackId,
    attempt: r.attempt,
    started_at: r.startedAt,
    duration_ms: r.durationMs,
    http_status: r.httpStatus,
    error: r.error,
    response_excerpt: r.excerpt,
    outcome: r.outcome,
  };
  // Never back: an attempt of a worker whose lease ran out may be recorded after a later one.
  const attempts =
    dialect === "postgres"
      ? sql<number>`GREATEST(attempts, ${r.attempt})`
      : sql<number>`MAX(attempts, ${r.attempt})`;
  const update = (qc: QueryCreator<Database>) =>
    qc
      .updateTable("callbacks")
      .set({
        attempts,
        step: sql`step + 1`,
        last_attempt_at: r.startedAt,
        last_result: r.summary,
        updated_at: r.now,
        lease_until: 0,
        lease_owner: null,
        ...(r.outcome === "delivered"
          ? { status: "delivered" as const, delivered_at: r.now }
          : r.outcome === "failed"
            ? { status: "failed" as const, failed_at: r.now }
            : { next_attempt_at: r.nextAttemptAt ?? r.now }),
      })
      .where("id", "=", r.callbackId)
      // Only the worker still holding the lease moves the schedule on, and only if no
      // redelivery was asked while it sent. One whose lease ran out while it waited (another
      // worker has the row now) leaves just its attempt on record.
      .where("lease_owner", "=", r.owner)
      .where("schedule_version", "=", r.scheduleVersion);
  // A redelivery was asked while this attempt was in flight: the attempt is counted and the row
  // handed back as the operator left it (due now, its schedule from the start), so the
  // redelivery goes out after this attempt, never beside it.
  const handBack = (qc: QueryCreator<Database>) =>
    qc
      .updateTable("callbacks")
      .set({
        attempts,
        last_attempt_at: r.startedAt,
        last_result: r.summary,
        updated_at: r.now,
        lease_until: 0,
        lease_owner: null,
      })
      .where("id", "=", r.callbackId)
      .where("lease_owner", "=", r.owner)
      .where("schedule_version", "<>", r.scheduleVersion);
  const interrupted = r.attempt - r.recordedBefore > 1;
  if (dialect === "postgres" && !interrupted) {
    // One statement, so one round trip and one commit: the attempt is a data-modifying CTE.
    const moved = await update(
      // The CTE adds a name the update never reads; to the builder it is the same query creator.
      db.with("attempt", (qc) =>
        qc.insertInto("callback_attempts").values(attempt),
      ) as unknown as QueryCreator<Database>,
    ).executeTakeFirst();
    if (Number(moved.numUpdatedRows) === 0) await handBack(db).execute();
    return;
  }
  await db.transaction().execute(async (trx) => {
    if (interrupted) await recordInterrupted(trx, r);
    await trx.insertInto("callback_attempts").values(attempt).execute();
    const moved = await update(trx).executeTakeFirst();
    if (Number(moved.numUpdatedRows) === 0) await handBack(trx).execute();
  });
}

/**
 * The attempts a stopped worker had claimed and never recorded, each on record once (a worker
 * whose lease ran out may have recorded its own since): when this worker found them, with no
 * answer, since none is known.
 */
async function recordInterrupted(trx: Kysely<Database>, r: AttemptRecord): Promise<void> {
  const recorded = await trx
    .selectFrom("callback_attempts")
    .select("attempt")
    .where("callback_id", "=", r.callbackId)
    .where("attempt", ">", r.recordedBefore)
    .where("attempt", "<", r.attempt)
    .execute();
  const seen = new Set(recorded.map((a) => a.attempt));
  const missing: number[] = [];
  for (let n = r.recordedBefore + 1; n < r.attempt; n++) if (!seen.has(n)) missing.push(n);
  if (missing.length === 0) return;
  await trx
    .insertInto("callback_attempts")
    .values(
      missing.map((n) => ({
        callback_id: r.callbackId,
        attempt: n,
        started_at: r.startedAt,
        duration_ms: 0,
        http_status: null,
        error: INTERRUPTED,
        response_excerpt: null,
        outcome: "retry" as const,
      })),
    )
    .execute();
}

/** What an interrupted attempt's record says: whether it went out is not known. */
export const INTERRUPTED =
  "interrupted: the worker sending it stopped before an answer (the receiver may have had it)";
