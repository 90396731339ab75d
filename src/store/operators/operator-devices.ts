import type { Kysely } from "kysely";
import type { Database } from "../schema.js";

/**
 * The browsers operators have signed in from, by the hash of their device token (operators/devices.ts).
 * A sign-in records its browser in the transaction that opens its session (operators.ts).
 */
export interface OperatorDeviceRepository {
  /** Which of `tokenHashes` the operator signed in with at `since` or later; undefined for none. */
  knownOf(tokenHashes: readonly string[], operatorId: number, since: number): Promise<string | undefined>;
  /** Forgets the operator's browsers, but `keep` (a token hash; null: none). */
  forgetOf(operatorId: number, keep: string | null): Promise<void>;
  /** Forgets browsers no one signed in from since `before`. */
  purge(before: number): Promise<void>;
}

export function createOperatorDeviceRepository(db: Kysely<Database>): OperatorDeviceRepository {
  return {
    async knownOf(tokenHashes, operatorId, since) {
      const row = await db
        .selectFrom("operator_devices")
        .select("token_hash")
        .where("token_hash", "in", tokenHashes)
        .where("operator_id", "=", operatorId)
        .where("seen_at", ">=", since)
        .limit(1)
        .executeTakeFirst();
      return row?.token_hash;
    },

    async forgetOf(operatorId, keep) {
      let q = db.deleteFrom("operator_devices").where("operator_id", "=", operatorId);
      if (keep !== null) q = q.where("token_hash", "<>", keep);
      await q.execute();
    },

    async purge(before) {
      await db.deleteFrom("operator_devices").where("seen_at", "<", before).execute();
    },
  };
}
