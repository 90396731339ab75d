import { type Dialect, SqliteDialect } from "kysely";
import type { Prepared, StatementRunner } from "./prepared.js";
import { type SqliteDatabase, type Statement, sqliteDatabase } from "./sqlite-driver.js";
import { type GroupCommit, SqliteOpenError } from "./sqlite-group-commit.js";

/**
 * The embedded store without its thread: better-sqlite3 on the thread that serves HTTP, each write
 * committed (and fsynced) on its own, so an answer never waits for a batch. It exists to measure
 * what the thread and its group commit buy (docs/adr/0012-store-engines-measured.md); production
 * runs the thread.
 */
export function openInline(file: string, exclusive: boolean): { dialect: Dialect; groupCommit: GroupCommit } {
  let db: SqliteDatabase;
  try {
    db = new (sqliteDatabase())(file, { timeout: 0 });
    if (exclusive) db.pragma("locking_mode = EXCLUSIVE");
    db.pragma("journal_mode = WAL");
    db.exec("BEGIN IMMEDIATE; COMMIT;");
  } catch (err) {
    const e = err as { code?: string; message?: string };
    throw new SqliteOpenError(e.message ?? String(err), e.code ?? "");
  }
  db.pragma("synchronous = FULL");
  db.pragma("foreign_keys = ON");
  const cache = new WeakMap<Prepared, Statement>();
  const prepare = (s: Prepared): Statement => {
    let stmt = cache.get(s);
    if (!stmt) {
      stmt = db.prepare(s.sqlite);
      cache.set(s, stmt);
    }
    return stmt;
  };
  const statements: StatementRunner = {
    rows: async <R>(s: Prepared, params: readonly unknown[]) => prepare(s).all(...params) as R[],
    changes: async (s: Prepared, params: readonly unknown[]) => prepare(s).run(...params).changes,
  };
  let closed = false;
  const groupCommit: GroupCommit = {
    // Every statement has committed durably (synchronous = FULL) by the time it returns.
    settle: async () => {},
    statements,
    script: async (sql) => {
      db.exec(sql);
    },
    close: async () => {
      if (closed) return;
      closed = true;
      if (db.open) db.close();
    },
  };
  // Kysely's driver closes the database on destroy; close() then finds it closed.
  const dialect = new SqliteDialect({ database: db });
  return { dialect, groupCommit };
}
