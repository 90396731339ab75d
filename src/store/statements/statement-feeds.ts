import type { Kysely } from "kysely";
import type { Database } from "../schema.js";

/**
 * Each payment account's live statement feed (reconciliation/feed.ts): its sealed secret, how long
 * it may be silent, and when it last spoke. The secret is set through the audited account update.
 */
export interface FeedRow {
  account_id: number;
  iban: string;
  bank_name: string;
  secret_sealed: string | null;
  silence_minutes: number | null;
  last_at: number | null;
}

export interface FeedRepository {
  get(accountId: number): Promise<FeedRow | undefined>;
  /** The accounts that have a feed, in id order. */
  list(): Promise<FeedRow[]>;
  /** The feed spoke at `at` (never moves back: two requests may finish out of order). */
  spoke(accountId: number, at: number): Promise<void>;
}

export function createFeedRepository(db: Kysely<Database>): FeedRepository {
  const base = () =>
    db
      .selectFrom("payment_accounts")
      .select([
        "id as account_id",
        "iban",
        "bank_name",
        "feed_secret_sealed as secret_sealed",
        "feed_silence_minutes as silence_minutes",
        "feed_last_at as last_at",
      ]);
  const typed = (r: FeedRow): FeedRow => ({
    ...r,
    account_id: Number(r.account_id),
    silence_minutes: r.silence_minutes === null ? null : Number(r.silence_minutes),
    last_at: r.last_at === null ? null : Number(r.last_at),
  });
  return {
    async get(accountId) {
      const row = await base().where("id", "=", accountId).executeTakeFirst();
      return row ? typed(row as FeedRow) : undefined;
    },
    async list() {
      const rows = await base().where("feed_secret_sealed", "is not", null).orderBy("id").execute();
      return rows.map((r) => typed(r as FeedRow));
    },
    async spoke(accountId, at) {
      await db
        .updateTable("payment_accounts")
        .set({ feed_last_at: at })
        .where("id", "=", accountId)
        .where((eb) => eb.or([eb("feed_last_at", "is", null), eb("feed_last_at", "<", at)]))
        .execute();
    },
  };
}
