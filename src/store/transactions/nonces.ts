import { type Kysely, sql } from "kysely";
import { prepared, type StatementRunner } from "../engine/prepared.js";
import type { Database } from "../schema.js";

export interface NonceRepository {
  /** Records the nonce; false when this firm already used it and it has not been purged yet. */
  record(firmId: number, nonce: string, expiresAt: number): Promise<boolean>;
  /** Deletes up to `limit` nonces that expired before `now`. */
  purgeExpired(now: number, limit: number): Promise<number>;
}

export const RECORD_NONCE = prepared(
  "nonce_record",
  "INSERT INTO nonces (firm_id, nonce, expires_at) VALUES ($1, $2, $3) ON CONFLICT (firm_id, nonce) DO NOTHING",
);

export function createNonceRepository(db: Kysely<Database>, runner: StatementRunner): NonceRepository {
  return {
    async record(firmId, nonce, expiresAt) {
      return (await runner.changes(RECORD_NONCE, [firmId, nonce, expiresAt])) === 1;
    },
    async purgeExpired(now, limit) {
      const result = await sql`DELETE FROM nonces WHERE (firm_id, nonce) IN
        (SELECT firm_id, nonce FROM nonces WHERE expires_at < ${now} LIMIT ${limit})`.execute(db);
      return Number(result.numAffectedRows ?? 0);
    },
  };
}
