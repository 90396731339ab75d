import type { Kysely } from "kysely";
import { prepared, type StatementRunner } from "./prepared.js";
import type { Database } from "./schema.js";

export interface NonceRepository {
  /** Records the nonce; false when this firm already used it and it has not been purged yet. */
  record(firmId: number, nonce: string, expiresAt: number): Promise<boolean>;
  purgeExpired(now: number): Promise<number>;
}

export const RECORD_NONCE = prepared(
  "nonce_record",
  "INSERT INTO nonces (firm_id, nonce, expires_at) VALUES ($1, $2, $3) ON CONFLICT (firm_id, nonce) DO NOTHING",
);

export function createNonceRepository(db: Kysely<Database>, statements: StatementRunner): NonceRepository {
  return {
    async record(firmId, nonce, expiresAt) {
      return (await statements.changes(RECORD_NONCE, [firmId, nonce, expiresAt])) === 1;
    },
    async purgeExpired(now) {
      const result = await db.deleteFrom("nonces").where("expires_at", "<", now).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
