/**
 * What payouts through a payout channel need of the store (payouts/channel-release.ts,
 * jobs/payout-watch.ts): the paying account's channel, the sent attempts whose status a channel is
 * asked, the sent attempts overdue, and flags raised once.
 *
 * Several instances run the watch on one PostgreSQL. Two things keep them from doubling anything:
 * - an attempt is asked about only after a claim, a compare-and-set of its `updated_at` (the value
 *   read must still be there): of two instances reading the same row, one claims it and asks, the
 *   other's UPDATE finds the new value and skips. The claim also spaces the questions: an attempt
 *   is asked again only once `updated_at` is older than the watch's interval. No lock is held while
 *   the channel is asked.
 * - every flag is a conditional UPDATE (`flag IS NULL` or not yet this flag) with its audit entry
 *   in the same database transaction, so a flag is raised and audited once.
 * Payment itself is payout-outcomes.ts's, conditional on `stage = 'sent'`: even two questions that
 * both learn "paid" pay once.
 */
import { type Kysely, type Selectable, sql } from "kysely";
import { writeAudit } from "../audited.js";
import type { ChannelTable, Database, PayoutAttemptTable } from "../schema.js";

/** A sent attempt as a channel is asked about it, with what its order needs. */
export type WatchedAttempt = Selectable<PayoutAttemptTable> & {
  reference: string;
  channel_id: number;
};

export type PaidAccountChannel = Selectable<ChannelTable>;

/** Flags that a channel's later answer may not lift, and that keep an attempt from being approved. */
export const CHANNEL_MISMATCH = "channel_mismatch";
export const CHANNEL_UNKNOWN = "channel_unknown";
export const OVERDUE = "overdue";

export interface FlagOnce {
  attemptId: number;
  flag: string;
  actor: string;
  now: number;
  detail?: Record<string, unknown>;
}

export interface PayoutWatchRepository {
  /** The channel of a paying account (undefined: the account pays by hand, or has no such channel). */
  channelOfAccount(accountId: number): Promise<PaidAccountChannel | undefined>;
  /**
   * Sent attempts of accounts on an active http channel, not flagged as a mismatch, last touched
   * at or before `touchedBy` (oldest first): the ones whose status is due to be asked.
   */
  dueForStatus(touchedBy: number, limit: number): Promise<WatchedAttempt[]>;
  /** Claims an attempt for one question: true when `updated_at` was still `seen` (and is now `now`). */
  claim(attemptId: number, seen: number, now: number): Promise<boolean>;
  /** Sent attempts with no flag, sent at or before `sentBy`, of one method (oldest first). */
  sentUnflagged(method: "FAST" | "EFT", sentBy: number, limit: number): Promise<WatchedAttempt[]>;
  /** Raises a flag on a sent attempt with no flag (overdue): true when this call raised it. */
  flagIfNone(f: FlagOnce): Promise<boolean>;
  /**
   * Raises a channel's flag on a sent attempt, unless it carries it already or a mismatch (which
   * no later answer lifts): true when this call raised it.
   */
  flagChannel(f: FlagOnce): Promise<boolean>;
  /** A channel's clear answer came after its unknown one: the `channel_unknown` flag is lifted. */
  liftUnknown(attemptId: number, now: number): Promise<void>;
}

export function createPayoutWatchRepository(db: Kysely<Database>): PayoutWatchRepository {
  const watched = () =>
    db
      .selectFrom("payout_attempts as a")
      .innerJoin("transactions as t", "t.id", "a.transaction_id")
      .innerJoin("payment_accounts as p", "p.id", "a.account_id")
      .innerJoin("channels as c", "c.id", "p.channel_id")
      .selectAll("a")
      .select(["t.reference", "c.id as channel_id"])
      .where("a.stage", "=", "sent");
  return {
    channelOfAccount: (accountId) =>
      db
        .selectFrom("payment_accounts as p")
        .innerJoin("channels as c", "c.id", "p.channel_id")
        .selectAll("c")
        .where("p.id", "=", accountId)
        .executeTakeFirst(),

    dueForStatus: (touchedBy, limit) =>
      watched()
        .where("c.kind", "=", "http")
        .where("c.active", "=", 1)
        .where((eb) => eb.or([eb("a.flag", "is", null), eb("a.flag", "<>", CHANNEL_MISMATCH)]))
        .where("a.updated_at", "<=", touchedBy)
        .orderBy("a.updated_at")
        .orderBy("a.id")
        .limit(limit)
        .execute() as Promise<WatchedAttempt[]>,

    async claim(attemptId, seen, now) {
      const row = await db
        .updateTable("payout_attempts")
        .set({ updated_at: now })
        .where("id", "=", attemptId)
        .where("stage", "=", "sent")
        .where("updated_at", "=", seen)
        .returning("id")
        .executeTakeFirst();
      return row !== undefined;
    },

    sentUnflagged: (method, sentBy, limit) =>
      db
        .selectFrom("payout_attempts as a")
        .innerJoin("transactions as t", "t.id", "a.transaction_id")
        .leftJoin("payment_accounts as p", "p.id", "a.account_id")
        .selectAll("a")
        .select(["t.reference", sql<number>`COALESCE(p.channel_id, 0)`.as("channel_id")])
        .where("a.stage", "=", "sent")
        .where("a.flag", "is", null)
        .where("a.method", "=", method)
        .where("a.sent_at", "<=", sentBy)
        .orderBy("a.sent_at")
        .orderBy("a.id")
        .limit(limit)
        .execute() as Promise<WatchedAttempt[]>,

    flagIfNone: (f) => raiseFlag(db, f, "none"),
    flagChannel: (f) => raiseFlag(db, f, "channel"),

    async liftUnknown(attemptId, now) {
      await db
        .updateTable("payout_attempts")
        .set({ flag: null, updated_at: now })
        .where("id", "=", attemptId)
        .where("flag", "=", CHANNEL_UNKNOWN)
        .execute();
    },
  };
}

/** The flag and its audit entry in one database transaction; nothing when another raised it first. */
function raiseFlag(db: Kysely<Database>, f: FlagOnce, when: "none" | "channel"): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    let update = trx
      .updateTable("payout_attempts")
      .set({ flag: f.flag, updated_at: f.now })
      .where("id", "=", f.attemptId)
      .where("stage", "=", "sent");
    update =
      when === "none"
        ? update.where("flag", "is", null)
        : update.where((eb) =>
            eb.or([eb("flag", "is", null), eb("flag", "not in", [f.flag, CHANNEL_MISMATCH])]),
          );
    const row = await update.returning("transaction_id").executeTakeFirst();
    if (!row) return false;
    await writeAudit(
      trx,
      { actor: f.actor, action: `payout.${f.flag}`, at: f.now },
      "transaction",
      String(row.transaction_id),
      null,
      { attempt: f.attemptId, ...f.detail },
    );
    return true;
  });
}
