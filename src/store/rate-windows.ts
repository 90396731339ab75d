import type { Kysely } from "kysely";
import type { Database } from "./schema.js";

export interface RateWindowRepository {
  /**
   * Adds `n` to the key's count in the window if the count stays within `limit`, in one statement
   * (concurrent reservations from several instances cannot pass the limit together); false when it
   * would not fit.
   */
  reserve(key: string, windowStart: number, n: number, limit: number): Promise<boolean>;
  /** Forgets windows that started before `before`. */
  purge(before: number): Promise<void>;
}

export function createRateWindowRepository(db: Kysely<Database>): RateWindowRepository {
  return {
    async reserve(key, windowStart, n, limit) {
      if (n > limit) return false;
      const row = await db
        .insertInto("rate_windows")
        .values({ key, window_start: windowStart, count: n })
        .onConflict((oc) =>
          oc
            .columns(["key", "window_start"])
            .doUpdateSet((eb) => ({ count: eb("rate_windows.count", "+", eb.ref("excluded.count")) }))
            .where((eb) => eb(eb("rate_windows.count", "+", eb.ref("excluded.count")), "<=", limit)),
        )
        .returning("count")
        .executeTakeFirst();
      return row !== undefined;
    },
    async purge(before) {
      await db.deleteFrom("rate_windows").where("window_start", "<", before).execute();
    },
  };
}
