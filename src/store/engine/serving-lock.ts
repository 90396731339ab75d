/**
 * Which PostgreSQL instances serve on a store, for work that must have the store to itself (the
 * master key rotation, main/master-key-rotation.ts): every serving instance holds a shared advisory
 * lock for its whole life, on a connection of its own, and that work takes the same lock
 * exclusively or refuses. The embedded store needs none of this: its file lock already admits one
 * process (open.ts).
 */
import { type Kysely, sql } from "kysely";
import pg from "pg";
import type { Database } from "../schema.js";

/**
 * Advisory locks belong to the database, not the schema, while one database may hold several
 * stores (one per schema; the tests make one per file): the lock's second half is a hash of the
 * schema, so a server on one store does not block a rotation of another. Two int4 halves, so it
 * never meets the migrations' single-bigint lock.
 */
const LOCK_KEY = "727275, ('x' || substr(md5(coalesce(current_schema(), '')), 1, 8))::bit(32)::int";
// Short: without the lock the instance seals nothing (a deposit with a national id fails), and a
// refused connection costs nothing while the database is down.
const RECONNECT_MS = 300;

export interface ServingLock {
  /**
   * Whether the lock is held now. Not while its connection is lost and until it is taken again and
   * the key checked: a rotation may be running meanwhile, and a secret sealed then under this
   * instance's key would be left under the old key for good.
   */
  held(): boolean;
  close(): Promise<void>;
}

/**
 * Takes the shared lock (waiting while a rotation holds it exclusively) and keeps it until close().
 * A lost connection loses the lock with it, and for that while a rotation could run, so when the
 * lock is taken again `regained` runs before anything else: it checks that the store still has
 * this instance's key. A `regained` that throws counts as a lost connection (tried again).
 */
export async function holdServingLock(url: string, regained: () => Promise<void>): Promise<ServingLock> {
  let current: pg.Client | undefined;
  let retry: NodeJS.Timeout | undefined;
  let closed = false;
  let holding = false;

  function later(): void {
    if (closed || retry) return;
    retry = setTimeout(() => {
      retry = undefined;
      take(true).catch(() => later());
    }, RECONNECT_MS);
    retry.unref();
  }

  function drop(c: pg.Client): Promise<void> {
    if (current === c) current = undefined;
    c.removeAllListeners();
    // A late error from a dropped client must not crash the process.
    c.on("error", () => {});
    return c.end().catch(() => {});
  }

  async function take(again: boolean): Promise<void> {
    if (closed) return;
    const c = new pg.Client({
      connectionString: url,
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
      // A reconnect that hangs must not leave the instance without the lock (and sealing paused) for long.
      connectionTimeoutMillis: 5_000,
      // Found in pg_stat_activity when a rotation is refused (docs/operations.md).
      application_name: "payintake serving lock",
    });
    current = c;
    // Lost once held: take it again. Failing while being taken is the caller's to handle.
    let held = false;
    const lost = () => {
      if (current === c) holding = false;
      void drop(c);
      if (held) later();
    };
    c.on("error", lost);
    c.on("end", lost);
    try {
      await c.connect();
      await c.query(`SELECT pg_advisory_lock_shared(${LOCK_KEY})`);
      if (again) await regained();
      // Dropped meanwhile (the connection broke, or close()): the lock is not held after all.
      if (current !== c) throw new Error("the serving lock's connection ended while the lock was taken");
    } catch (err) {
      void drop(c);
      throw err;
    }
    held = true;
    holding = true;
  }

  await take(false);
  return {
    held: () => holding,
    async close() {
      closed = true;
      if (retry) clearTimeout(retry);
      // Ending the session releases the lock; it is waited for, so that a rotation started right
      // after a stop does not find this instance still there.
      if (current) await drop(current);
    },
  };
}

/**
 * Runs `work` on one connection while holding the lock exclusively: no serving instance is on the
 * store, and none can start (it waits for the lock) until `work` is done. "in_use" when one is.
 */
export async function withoutServers<T>(
  db: Kysely<Database>,
  work: (conn: Kysely<Database>) => Promise<T>,
): Promise<T | "in_use"> {
  return db.connection().execute(async (conn) => {
    const taken = await sql<{
      taken: boolean;
    }>`SELECT pg_try_advisory_lock(${sql.raw(LOCK_KEY)}) AS taken`.execute(conn);
    if (taken.rows[0]?.taken !== true) return "in_use" as const;
    try {
      return await work(conn);
    } finally {
      // Ending the session would release it too: a failed unlock (the connection is gone) must not
      // turn work that committed into an error.
      await sql`SELECT pg_advisory_unlock(${sql.raw(LOCK_KEY)})`.execute(conn).catch(() => {});
    }
  });
}
