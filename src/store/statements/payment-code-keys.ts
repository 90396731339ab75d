import type { Kysely } from "kysely";
import type { Database } from "../schema.js";

/** The one row of `payment_code_keys` (migration 20261204T1000_payment_code_key). */
export const PAYMENT_CODE_KEY_ROW = 1;

export interface StoredPaymentCodeKey {
  /** The key sealed with the master key; null until a start of this version seals one. */
  sealed: string | null;
  /** The highest transaction id when the store took keyed codes: those up to it keep keyless ones. */
  legacyThrough: number;
}

export interface PaymentCodeKeyRepository {
  read(): Promise<StoredPaymentCodeKey>;
  /**
   * Records `sealed` as the key unless one is recorded already, and returns the one that is:
   * instances on one PostgreSQL may seal theirs at the same moment, and only the first is kept
   * (the others' updates find the key no longer null and change nothing), so every instance
   * computes codes with the same key.
   */
  recordKey(sealed: string, now: number): Promise<string>;
}

export function createPaymentCodeKeyRepository(db: Kysely<Database>): PaymentCodeKeyRepository {
  async function read(): Promise<StoredPaymentCodeKey> {
    const row = await db
      .selectFrom("payment_code_keys")
      .select(["key_sealed", "legacy_through"])
      .where("id", "=", PAYMENT_CODE_KEY_ROW)
      .executeTakeFirst();
    // The migration writes the row; a store without it was changed by hand.
    if (!row) throw new Error("the store has no payment code key row (payment_code_keys is empty)");
    return { sealed: row.key_sealed, legacyThrough: row.legacy_through };
  }
  return {
    read,
    async recordKey(sealed, now) {
      await db
        .updateTable("payment_code_keys")
        .set({ key_sealed: sealed, sealed_at: now })
        .where("id", "=", PAYMENT_CODE_KEY_ROW)
        .where("key_sealed", "is", null)
        .execute();
      const recorded = (await read()).sealed;
      if (recorded === null) throw new Error("the payment code key was written but cannot be read");
      return recorded;
    },
  };
}
