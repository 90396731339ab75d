import type { Kysely, Transaction } from "kysely";
import type { Dialect } from "./open.js";
import type { Database } from "./schema.js";

export interface CapHoldRequest {
  accountId: number;
  amountMinor: number;
  /** Start of the account's day (epoch ms): deposits created since then count against its cap. */
  since: number;
  now: number;
  /** When the hold stops counting if nobody releases it (an instance that stopped mid-deposit). */
  expiresAt: number;
}

export type CapHoldOutcome = { outcome: "held"; id: number } | { outcome: "uncapped" } | { outcome: "full" };

/**
 * Daily caps judged against every instance's deposits, written or still being routed. A deposit
 * holds its amount on a capped account before it is written; the hold is judged and written in one
 * database transaction with the account row locked, so two instances routing to the same account at
 * the same moment cannot both pass its cap (before: each counted only its own deposits in flight).
 */
export interface CapHoldRepository {
  /** Per account: deposits since `since` that were not rejected, plus the holds not yet expired. */
  usage(accountIds: readonly number[], since: number, now: number): Promise<Map<number, number>>;
  /**
   * Holds the amount if the account's cap, as it is in the database now, leaves room for it
   * (`uncapped` if the account has no cap any more: nothing to hold).
   */
  hold(req: CapHoldRequest): Promise<CapHoldOutcome>;
  release(id: number): Promise<void>;
  purgeExpired(now: number): Promise<void>;
}

async function usageIn(
  db: Kysely<Database> | Transaction<Database>,
  accountIds: readonly number[],
  since: number,
  now: number,
) {
  const total = new Map<number, number>();
  if (accountIds.length === 0) return total;
  const add = (rows: { account_id: number | null; total: number | string | null }[]) => {
    for (const r of rows) {
      const id = Number(r.account_id);
      total.set(id, (total.get(id) ?? 0) + Number(r.total ?? 0));
    }
  };
  add(
    await db
      .selectFrom("transactions")
      .select(["account_id", (eb) => eb.fn.sum<number>("amount").as("total")])
      .where("account_id", "in", [...accountIds])
      .where("created_at", ">=", since)
      .where("type", "=", "deposit")
      .where("status", "<>", "rejected")
      .groupBy("account_id")
      .execute(),
  );
  add(
    await db
      .selectFrom("cap_holds")
      .select(["account_id", (eb) => eb.fn.sum<number>("amount").as("total")])
      .where("account_id", "in", [...accountIds])
      .where("expires_at", ">", now)
      .groupBy("account_id")
      .execute(),
  );
  return total;
}

export function createCapHoldRepository(db: Kysely<Database>, dialect: Dialect): CapHoldRepository {
  return {
    usage: (accountIds, since, now) => usageIn(db, accountIds, since, now),

    hold(req) {
      return db.transaction().execute(async (trx): Promise<CapHoldOutcome> => {
        // The account row locked (PostgreSQL) orders the holds of every instance on this account;
        // NO KEY UPDATE leaves the key-share locks that inserting deposits take free. SQLite runs
        // one writing transaction at a time anyway.
        const select = trx.selectFrom("payment_accounts").select("daily_cap").where("id", "=", req.accountId);
        const account = await (dialect === "postgres" ? select.forNoKeyUpdate() : select).executeTakeFirst();
        const cap = account?.daily_cap == null ? null : Number(account.daily_cap);
        if (cap === null) return { outcome: "uncapped" };
        const used = (await usageIn(trx, [req.accountId], req.since, req.now)).get(req.accountId) ?? 0;
        if (used + req.amountMinor > cap) return { outcome: "full" };
        const row = await trx
          .insertInto("cap_holds")
          .values({ account_id: req.accountId, amount: req.amountMinor, expires_at: req.expiresAt })
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
