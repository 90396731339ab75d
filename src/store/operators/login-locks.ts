import type { Kysely } from "kysely";
import { countFailure, type LockColumns, takeBackFailure } from "../engine/lock-counting.js";
import type { Database } from "../schema.js";

/**
 * Failures in a row and the lock they set, by key (operators/devices.ts names the keys): the same
 * counting as an operator row's (engine/lock-counting.ts), for a known browser of an operator and for an
 * email that is no active operator's.
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

/** Qualified: in the upsert's DO UPDATE they name the stored row, not the one proposed. */
const KEY_LOCK: LockColumns = {
  failures: "login_locks.failures",
  lockedUntil: "login_locks.locked_until",
  lastFailure: "login_locks.updated_at",
};

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
      // (operators/sign-in-attempts.ts); the upsert below would lock the row and commit, which takes long
      // enough on PostgreSQL to tell an unknown email's 423 from an operator's.
      if ((await lockedUntil(key)) > now) return false;
      const counted = countFailure(KEY_LOCK, limit, lockUntil, forgetBefore);
      const row = await db
        .insertInto("login_locks")
        .values({ key, failures: 1, locked_until: limit <= 1 ? lockUntil : 0, updated_at: now })
        .onConflict((oc) =>
          oc
            .column("key")
            .doUpdateSet({ failures: counted.failures, locked_until: counted.lockedUntil, updated_at: now })
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
      const taken = takeBackFailure(KEY_LOCK, lockUntil);
      await db
        .updateTable("login_locks")
        .set({ failures: taken.failures, locked_until: taken.lockedUntil })
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
