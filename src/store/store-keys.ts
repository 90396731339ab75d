import type { Kysely } from "kysely";
import { sealContext } from "../crypto/seal-context.js";
import type { Database } from "./schema.js";

const MASTER = "master";

export interface StoreKeyRepository {
  /** The master key's check value as recorded by the first start, if one was. */
  masterCheck(): Promise<string | undefined>;
  /**
   * Records `check` unless a check is recorded already, and returns the one that is: instances on
   * one PostgreSQL may record theirs at the same moment, and only the first is kept (the others'
   * inserts do nothing), so each compares its own with the one that won.
   */
  recordMasterCheck(check: string, now: number): Promise<string>;
  /** Puts `check` in place of the master key's check (there must be one): a rotation's. */
  replaceMasterCheck(check: string, now: number): Promise<void>;
  /**
   * One secret sealed in the store before its key was checked, if there is any: the oldest firm's
   * secret key, else a channel's secret, else an operator's authenticator secret. Small tables only
   * (the transactions' national ids could take a scan of the largest one).
   */
  oldestSealedSecret(): Promise<{ sealed: string; context: string } | undefined>;
}

export function createStoreKeyRepository(db: Kysely<Database>): StoreKeyRepository {
  async function masterCheck() {
    const row = await db
      .selectFrom("store_keys")
      .select("key_check")
      .where("purpose", "=", MASTER)
      .executeTakeFirst();
    return row?.key_check;
  }
  return {
    masterCheck,

    async recordMasterCheck(check, now) {
      await db
        .insertInto("store_keys")
        .values({ purpose: MASTER, key_check: check, created_at: now })
        .onConflict((oc) => oc.column("purpose").doNothing())
        .execute();
      const recorded = await masterCheck();
      if (recorded === undefined) throw new Error("the master key check was written but cannot be read");
      return recorded;
    },

    async replaceMasterCheck(check, now) {
      const result = await db
        .updateTable("store_keys")
        .set({ key_check: check, created_at: now })
        .where("purpose", "=", MASTER)
        .executeTakeFirst();
      if (Number(result.numUpdatedRows) !== 1)
        throw new Error("the store has no master key check to replace");
    },

    async oldestSealedSecret() {
      const firm = await db
        .selectFrom("firms")
        .select(["id", "secret_sealed"])
        .orderBy("id")
        .limit(1)
        .executeTakeFirst();
      if (firm) return { sealed: firm.secret_sealed, context: sealContext.firmSecret(firm.id) };
      const channel = await db
        .selectFrom("channels")
        .select(["id", "secret_sealed"])
        .where("secret_sealed", "is not", null)
        .orderBy("id")
        .limit(1)
        .executeTakeFirst();
      if (channel?.secret_sealed)
        return { sealed: channel.secret_sealed, context: sealContext.channelSecret(channel.id) };
      const operator = await db
        .selectFrom("operators")
        .select(["id", "totp_sealed"])
        .where("totp_sealed", "is not", null)
        .orderBy("id")
        .limit(1)
        .executeTakeFirst();
      return operator?.totp_sealed
        ? { sealed: operator.totp_sealed, context: sealContext.operatorTotp(operator.id) }
        : undefined;
    },
  };
}
