import { type Kysely, sql, type Transaction } from "kysely";
import { capShareFor, shareOf } from "../../domain/cap-share.js";
import { startOfTurkeyDay } from "../../domain/turkey-time.js";
import type { Dialect } from "../engine/open.js";
import { liveFirmsOnly } from "../firms/firms.js";
import type { Database } from "../schema.js";

export interface CapHoldRequest {
  /** The deposit the amount is held for: once it is written, it counts instead of its hold. */
  firmId: number;
  reference: string;
  accountId: number;
  amountMinor: number;
  /** Start of the account's day in Türkiye (startOfTurkeyDay): that day's deposits count against its cap. */
  since: number;
  now: number;
  /** When the hold stops counting if nobody releases it (an instance that stopped mid-deposit). */
  expiresAt: number;
  /** The firm's own share of the account's cap (`max_cap_share`), percent; null: the default's. */
  capShare: number | null;
  /**
   * The service's default share, percent, for a firm without its own: it holds while another live
   * firm routes to the account (domain/cap-share.ts), as the database has the firms now.
   */
  defaultCapShare: number;
}

/** An account's day: every firm's deposits and holds, and those of one firm. */
export interface AccountUse {
  total: number;
  firm: number;
}

export type CapHoldOutcome = { outcome: "held"; id: number } | { outcome: "uncapped" } | { outcome: "full" };

/**
 * Daily caps judged against every instance's deposits, written or still being routed. A deposit
 * holds its amount on a capped account before it is written; the hold is judged and written in one
 * database transaction with the account row locked, so two instances routing to the same account at
 * the same moment cannot both pass its cap (before: each counted only its own deposits in flight).
 */
export interface CapHoldRepository {
  /**
   * Per account: the deposits of the Türkiye day that starts at `since` (startOfTurkeyDay) that were
   * not rejected, plus the holds not yet expired.
   */
  usage(accountIds: readonly number[], since: number, now: number): Promise<Map<number, number>>;
  /** As usage, with the part of it that is the firm's own, from the same statement. */
  usageOf(
    accountIds: readonly number[],
    since: number,
    now: number,
    firmId: number,
  ): Promise<Map<number, AccountUse>>;
  /**
   * Holds the amount if the account's cap, as it is in the database now, leaves room for it
   * (`uncapped` if the account has no cap any more: nothing to hold).
   */
  hold(req: CapHoldRequest): Promise<CapHoldOutcome>;
  release(id: number): Promise<void>;
  purgeExpired(now: number): Promise<void>;
}

/**
 * Deposits and holds summed in ONE statement, so in one snapshot. A deposit is written, then its
 * hold released: two statements read apart (PostgreSQL's READ COMMITTED gives each its own
 * snapshot) could sum the deposits before it was written and the holds after its hold was
 * released, and count it nowhere (a third 150 TL deposit could pass a 300 TL cap that way). In one
 * snapshot, a hold whose deposit is already written is left out, so each deposit counts exactly
 * once: by its hold until it is written, by itself after.
 */
async function usageIn(
  db: Kysely<Database> | Transaction<Database>,
  accountIds: readonly number[],
  since: number,
  now: number,
  /** Whose part to sum besides the total (0, no firm's id: none). */
  firmId = 0,
) {
  const total = new Map<number, AccountUse>();
  if (accountIds.length === 0) return total;
  // The day's deposits as the triggers of migration 20261201T1100 keep them: a row per firm.
  if (startOfTurkeyDay(since) !== since) throw new Error(`usage asked from ${since}, not a day's start`);
  const counted = db
    .selectFrom("account_day_use")
    .select([
      "account_day_use.account_id",
      "account_day_use.amount",
      (eb) => eb.ref("account_day_use.firm_id").$castTo<number | null>().as("firm_id"),
    ])
    .where("account_day_use.account_id", "in", [...accountIds])
    .where("account_day_use.day_start", "=", since)
    .unionAll(
      db
        .selectFrom("cap_holds")
        .select(["cap_holds.account_id", "cap_holds.amount", "cap_holds.firm_id"])
        .where("cap_holds.account_id", "in", [...accountIds])
        .where("cap_holds.expires_at", ">", now)
        .where(({ not, exists, selectFrom }) =>
          not(
            exists(
              selectFrom("transactions as written")
                .select("written.id")
                .whereRef("written.firm_id", "=", "cap_holds.firm_id")
                .whereRef("written.reference", "=", "cap_holds.reference"),
            ),
          ),
        ),
    )
    .as("counted");
  const rows = await db
    .selectFrom(counted)
    .select([
      "counted.account_id",
      (eb) => eb.fn.sum<number>("counted.amount").as("total"),
      sql<number>`sum(case when counted.firm_id = ${firmId} then counted.amount else 0 end)`.as("firm"),
    ])
    .groupBy("counted.account_id")
    .execute();
  for (const r of rows)
    total.set(Number(r.account_id), { total: Number(r.total ?? 0), firm: Number(r.firm ?? 0) });
  return total;
}

export function createCapHoldRepository(db: Kysely<Database>, dialect: Dialect): CapHoldRepository {
  return {
    async usage(accountIds, since, now) {
      const use = await usageIn(db, accountIds, since, now);
      return new Map([...use].map(([id, u]) => [id, u.total]));
    },
    usageOf: (accountIds, since, now, firmId) => usageIn(db, accountIds, since, now, firmId),

    hold(req) {
      return db.transaction().execute(async (trx): Promise<CapHoldOutcome> => {
        // The account row locked (PostgreSQL) orders the holds of every instance on this account;
        // NO KEY UPDATE leaves the key-share locks that inserting deposits take free. SQLite runs
        // one writing transaction at a time anyway. Whether another live firm shares the account
        // is read in the same statement (no extra round trip), as the firms are now.
        const select = trx
          .selectFrom("payment_accounts")
          .select((eb) => [
            "payment_accounts.daily_cap",
            eb
              .exists(
                trx
                  .selectFrom("firms")
                  .select("firms.id")
                  .where("firms.id", "!=", req.firmId)
                  .$call(liveFirmsOnly),
              )
              .as("shared"),
          ])
          .where("payment_accounts.id", "=", req.accountId);
        const account = await (dialect === "postgres"
          ? select.forNoKeyUpdate("payment_accounts")
          : select
        ).executeTakeFirst();
        const cap = account?.daily_cap == null ? null : Number(account.daily_cap);
        if (cap === null) return { outcome: "uncapped" };
        const used = (await usageIn(trx, [req.accountId], req.since, req.now, req.firmId)).get(req.accountId);
        if ((used?.total ?? 0) + req.amountMinor > cap) return { outcome: "full" };
        // The firm's share is judged under the same lock as the cap: two deposits of one firm
        // cannot both pass its last room on the account either.
        const share = capShareFor(req.capShare, req.defaultCapShare, Boolean(Number(account?.shared)));
        if (share !== null && (used?.firm ?? 0) + req.amountMinor > shareOf(cap, share))
          return { outcome: "full" };
        const row = await trx
          .insertInto("cap_holds")
          .values({
            account_id: req.accountId,
            amount: req.amountMinor,
            expires_at: req.expiresAt,
            firm_id: req.firmId,
            reference: req.reference,
          })
          .returning("id")
          .executeTakeFirstOrThrow();
        return { outcome: "held", id: Number(row.id) };
      });
    },

    async release(id) {
      await db.deleteFrom("cap_holds").where("id", "=", id).execute();
    },

    async purgeExpired(now) {
      await db.deleteFrom("cap_holds").where("expires_at", "<=", now).execute();
    },
  };
}
