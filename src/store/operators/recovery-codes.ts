import type { Kysely } from "kysely";
import type { Database } from "../schema.js";

/** Operators' recovery codes for two-step sign-in, as hashes (operators/recovery-codes.ts). */
export interface RecoveryCodeRepository {
  /** The operator's codes become `hashes`, all unused; the earlier ones (used or not) are gone. */
  replace(operatorId: number, hashes: readonly string[], now: number): Promise<void>;
  /**
   * Marks the code with `hash` used if it is the operator's and unused, in one statement: true for
   * exactly one of any number of sign-ins sending it at once.
   */
  take(operatorId: number, hash: string, now: number): Promise<boolean>;
  /** How many of the operator's codes are still unused. */
  countLeft(operatorId: number): Promise<number>;
  deleteOf(operatorId: number): Promise<void>;
}

export function createRecoveryCodeRepository(db: Kysely<Database>): RecoveryCodeRepository {
  return {
    async replace(operatorId, hashes, now) {
      // One transaction: a sign-in never finds the old codes gone and the new ones not yet there.
      await db.transaction().execute(async (trx) => {
        await trx.deleteFrom("operator_recovery_codes").where("operator_id", "=", operatorId).execute();
        if (hashes.length === 0) return;
        await trx
          .insertInto("operator_recovery_codes")
          .values(hashes.map((code_hash) => ({ operator_id: operatorId, code_hash, created_at: now })))
          .execute();
      });
    },
    async take(operatorId, hash, now) {
      const taken = await db
        .updateTable("operator_recovery_codes")
        .set({ used_at: now })
        .where("operator_id", "=", operatorId)
        .where("code_hash", "=", hash)
        .where("used_at", "is", null)
        .returning("id")
        .executeTakeFirst();
      return taken !== undefined;
    },
    async countLeft(operatorId) {
      const row = await db
        .selectFrom("operator_recovery_codes")
        .select((eb) => eb.fn.countAll<number | string>().as("n"))
        .where("operator_id", "=", operatorId)
        .where("used_at", "is", null)
        .executeTakeFirst();
      return Number(row?.n ?? 0);
    },
    async deleteOf(operatorId) {
      await db.deleteFrom("operator_recovery_codes").where("operator_id", "=", operatorId).execute();
    },
  };
}
