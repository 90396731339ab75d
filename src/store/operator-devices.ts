import type { Kysely } from "kysely";
import type { Database } from "./schema.js";

/** The browsers operators have signed in from, by the hash of their device cookie (console/devices.ts). */
export interface OperatorDeviceRepository {
  /** Whether the browser with `tokenHash` signed `operatorId` in at `since` or later. */
  knows(tokenHash: string, operatorId: number, since: number): Promise<boolean>;
  /** Whether any operator signed in from the browser with `tokenHash` at `since` or later. */
  anyKnows(tokenHash: string, since: number): Promise<boolean>;
  /** The operator signed in from the browser at `now`. */
  remember(tokenHash: string, operatorId: number, now: number): Promise<void>;
  /** Forgets the operator's browsers, but `keep` (a token hash; null: none). */
  forgetOf(operatorId: number, keep: string | null): Promise<void>;
  /** Forgets browsers no one signed in from since `before`. */
  purge(before: number): Promise<void>;
}

export function createOperatorDeviceRepository(db: Kysely<Database>): OperatorDeviceRepository {
  return {
    async knows(tokenHash, operatorId, since) {
      const row = await db
        .selectFrom("operator_devices")
        .select("operator_id")
        .where("token_hash", "=", tokenHash)
        .where("operator_id", "=", operatorId)
        .where("seen_at", ">=", since)
        .executeTakeFirst();
      return row !== undefined;
    },

    async anyKnows(tokenHash, since) {
      const row = await db
        .selectFrom("operator_devices")
        .select("operator_id")
        .where("token_hash", "=", tokenHash)
        .where("seen_at", ">=", since)
        .limit(1)
        .executeTakeFirst();
      return row !== undefined;
    },

    async remember(tokenHash, operatorId, now) {
      await db
        .insertInto("operator_devices")
        .values({ token_hash: tokenHash, operator_id: operatorId, created_at: now, seen_at: now })
        .onConflict((oc) => oc.columns(["token_hash", "operator_id"]).doUpdateSet({ seen_at: now }))
        .execute();
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
