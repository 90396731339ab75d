import type { Kysely } from "kysely";
import type { Database } from "./schema.js";

export interface NonceRepository {
  /** Records the nonce; false when this firm already used it and it has not been purged yet. */
  record(firmId: number, nonce: string, expiresAt: number): Promise<boolean>;
  purgeExpired(now: number): Promise<number>;
}

export function createNonceRepository(db: Kysely<Database>): NonceRepository {
  return {
    async record(firmId, nonce, expiresAt) {
      const result = await db
        .insertInto("nonces")
        .values({ firm_id: firmId, nonce, expires_at: expiresAt })
        .onConflict((oc) => oc.columns(["firm_id", "nonce"]).doNothing())
        .executeTakeFirst();
      return Number(result.numInsertedOrUpdatedRows ?? 0n) === 1;
    },
    async purgeExpired(now) {
      const result = await db.deleteFrom("nonces").where("expires_at", "<", now).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
