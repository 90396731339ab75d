import type { Kysely } from "kysely";
import type { Database } from "./schema.js";

/**
 * Failures in a row and the lock they set, by key (console/devices.ts names the keys): the same
 * counting as an operator row's (operators.ts `claimAttempt`), for a known browser of an operator
 * and for an email that is no active operator's.
 */
export interface LoginLockRepository {
  /**
   * Counts one attempt for `key` unless it is locked at `now`, in one statement; the attempt that
   * makes `limit` failures in a row sets the lock until `lockUntil`. False: locked, nothing counted.
   * Failures whose last one came before `forgetBefore` are forgotten (the count starts again).
   */
  claim(key: string, now: number, limit: number, lockUntil: number, forgetBefore: number): Promise<boolean>;
  /** A success: the failures are forgotten. */
  clear(key: string): Promise<void>;
  /** Takes back an attempt claimed with `lockUntil`, and the lock if that claim set it. */
  giveBack(key: string, lockUntil: number): Promise<void>;
  /** When the key's lock ends (0: never locked). */
  lockedUntil(key: string): Promise<number>;
  /** Forgets keys with no attempt since `before` and no lock running at `now`. */
  purge(before: number, now: number): Promise<void>;
}

export function createLoginLockRepository(db: Kysely<Database>): LoginLockRepository {
  const lockedUntil = async (key: string) => {
    const row = await db
      .selectFrom("login_locks")
      .select("locked_until")
      .where("key", "=", key)
      .executeTakeFirst();
    return row ? Number(row.locked_until) : 0;
  };
  return {
    async claim(key, now, limit, lockUntil, forgetBefore) {
      // Read first: a lock that holds is answered without a write, as an operator's row is
      // (console/guess.ts); the upsert below would lock the row and commit, which takes long
      // enough on PostgreSQL to tell an unknown email's 423 from an operator's.
      if ((await lockedUntil(key)) > now) return false;
      const row = await db
        .insertInto("login_locks")
        .values({ key, failures: 1, locked_until: limit <= 1 ? lockUntil : 0, updated_at: now })
        .onConflict((oc) =>
          oc
            .column("key")
            .doUpdateSet((eb) => {
              const forgotten = eb("login_locks.updated_at", "<", forgetBefore);
              return {
                failures: eb
                  .case()
                  .when(forgotten)
                  .then(1)
                  .else(eb("login_locks.failures", "+", 1))
                  .end(),
                locked_until: eb
                  .case()
                  .when(forgotten)
                  .then(eb.ref("login_locks.locked_until"))
                  .when("login_locks.failures", ">=", limit - 1)
                  .then(lockUntil)
                  .else(eb.ref("login_locks.locked_until"))
                  .end(),
                updated_at: now,
              };
            })
            .where("login_locks.locked_until", "<=", now),
        )
        .returning("key")
        .executeTakeFirst();
      return row !== undefined;
    },

    async clear(key) {
      await db.deleteFrom("login_locks").where("key", "=", key).execute();
    },

    async giveBack(key, lockUntil) {
      await db
        .updateTable("login_locks")
        .set((eb) => ({
          failures: eb("failures", "-", 1),
          locked_until: eb
            .case()
            .when("locked_until", "=", lockUntil)
            .then(0)
            .else(eb.ref("locked_until"))
            .end(),
        }))
        .where("key", "=", key)
        .where("failures", ">", 0)
        .execute();
    },

    lockedUntil,

    async purge(before, now) {
      await db
        .deleteFrom("login_locks")
        .where("updated_at", "<", before)
        .where("locked_until", "<=", now)
        .execute();
    },
  };
}
