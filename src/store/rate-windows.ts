import type { Kysely } from "kysely";
import type { Database } from "./schema.js";

export interface RateWindowRepository {
  /** Adds each key's count to its window; answers every key's total in that window after the add. */
  add(windowStart: number, counts: ReadonlyMap<string, number>): Promise<Map<string, number>>;
  /** Forgets windows that started before `before`. */
  purge(before: number): Promise<void>;
}

export function createRateWindowRepository(db: Kysely<Database>): RateWindowRepository {
  return {
    async add(windowStart, counts) {
      if (counts.size === 0) return new Map();
      const rows = await db
        .insertInto("rate_windows")
        // Sorted, so two instances upserting the same keys lock their rows in one order: no deadlock.
        .values(
          [...counts]
            .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
            .map(([key, count]) => ({ key, window_start: windowStart, count })),
        )
        .onConflict((oc) =>
          oc.columns(["key", "window_start"]).doUpdateSet((eb) => ({
            count: eb("rate_windows.count", "+", eb.ref("excluded.count")),
          })),
        )
        .returning(["key", "count"])
        .execute();
      return new Map(rows.map((r) => [r.key, Number(r.count)]));
    },
    async purge(before) {
      await db.deleteFrom("rate_windows").where("window_start", "<", before).execute();
    },
  };
}
