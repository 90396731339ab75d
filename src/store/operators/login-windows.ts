import type { Kysely } from "kysely";
import type { Database } from "../schema.js";

export type LoginWindowClaim = { counted: boolean; since: number };

export interface LoginWindowRepository {
  /**
   * Counts one attempt for `key` in its window, in one statement, if the window still has room: a
   * window that started `windowMs` or more ago starts again at `now`. Concurrent claims from any
   * number of instances cannot pass `limit` together. `since`: the start of the key's window.
   */
  claim(key: string, now: number, windowMs: number, limit: number): Promise<LoginWindowClaim>;
  /**
   * The start of `key`'s window when it is full (`limit` counted, started less than `windowMs` before
   * `now`); undefined when it has room or there is none. Reads only.
   */
  fullSince(key: string, now: number, windowMs: number, limit: number): Promise<number | undefined>;
  /** Takes back one attempt counted in the window that started at `since` (not in a later one). */
  giveBack(key: string, since: number): Promise<void>;
  /** Forgets windows that started before `before`. */
  purge(before: number): Promise<void>;
}

export function createLoginWindowRepository(db: Kysely<Database>): LoginWindowRepository {
  return {
    async claim(key, now, windowMs, limit) {
      const ended = now - windowMs;
      const row = await db
        .insertInto("login_windows")
        .values({ key, since: now, count: 1 })
        .onConflict((oc) =>
          oc
            .column("key")
            .doUpdateSet((eb) => {
              const over = eb("login_windows.since", "<=", ended);
              return {
                count: eb
                  .case()
                  .when(over)
                  .then(1)
                  .else(eb("login_windows.count", "+", 1))
                  .end(),
                since: eb.case().when(over).then(now).else(eb.ref("login_windows.since")).end(),
              };
            })
            .where((eb) =>
              eb.or([eb("login_windows.since", "<=", ended), eb("login_windows.count", "<", limit)]),
            ),
        )
        .returning("since")
        .executeTakeFirst();
      if (row) return { counted: true, since: Number(row.since) };
      const current = await db
        .selectFrom("login_windows")
        .select("since")
        .where("key", "=", key)
        .executeTakeFirst();
      return { counted: false, since: current ? Number(current.since) : now };
    },

    async fullSince(key, now, windowMs, limit) {
      const row = await db
        .selectFrom("login_windows")
        .select("since")
        .where("key", "=", key)
        .where("since", ">", now - windowMs)
        .where("count", ">=", limit)
        .executeTakeFirst();
      return row ? Number(row.since) : undefined;
    },

    async giveBack(key, since) {
      await db
        .updateTable("login_windows")
        .set((eb) => ({ count: eb("count", "-", 1) }))
        .where("key", "=", key)
        .where("since", "=", since)
        .where("count", ">", 0)
        .execute();
    },

    async purge(before) {
      await db.deleteFrom("login_windows").where("since", "<", before).execute();
    },
  };
}
