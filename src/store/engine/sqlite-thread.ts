/**
 * The embedded store's own thread: it holds the only connection to the database file and runs every
 * statement, the group commits and their fsyncs, so none of that occupies the thread that serves
 * HTTP. It is told what to run (sqlite-group-commit.ts); it decides when to commit.
 *
 * Group commit: the first write after a commit opens a transaction (a batch). Once every message
 * that arrived meanwhile has run, and no unit (SAVEPOINT) is open, the batch commits: one fsync for
 * all of them. While that fsync runs, new messages queue up and form the next batch. Each reply goes
 * out before the commit, carrying the number of the batch its statement ran in (0: outside any),
 * and a `committed` message follows each COMMIT: the other side answers no request before the batch
 * its statements ran in is durable.
 *
 * Atomicity: a failing statement rolls back alone (SQLite's ABORT), the rest of the batch stays. A
 * COMMIT that fails, or a batch SQLite has rolled back on its own (I/O error, full disk), is fatal:
 * the thread reports it and stops, and the process exits without answering anyone (crash-only).
 */
import { type MessagePort, parentPort, workerData } from "node:worker_threads";
import { type SqliteDatabase, type Statement, sqliteDatabase } from "./sqlite-driver.js";
import type { SqliteThreadInit, ThreadOp, ThreadReply } from "./sqlite-thread-protocol.js";

const STATEMENT_CACHE_SIZE = 500;
/**
 * Units that end while another waits for the connection leave the batch open for it, up to this
 * many in a row: units come one at a time (each holds the connection), and without this each would
 * pay an fsync of its own (operators' decisions, callback bookkeeping).
 */
const MAX_UNITS_PER_COMMIT = 8;
/**
 * How often the planner's statistics are taken anew (ANALYZE, reading at most ANALYSIS_ROWS rows
 * of each index, a few milliseconds at any size). Without them SQLite takes every indexed equality
 * for a selective one: `firm = 2 AND user_id = …` would walk the firm's index, all of a big firm's
 * rows, instead of the user's, and `status = 'approved'` would sort millions of rows instead of
 * reading the newest. Migrations end with an ANALYZE of their own (migrate.ts).
 */
const ANALYZE_FIRST_MS = 2_000;
const ANALYZE_EVERY_MS = 10 * 60_000;
const ANALYSIS_ROWS = 2_000;
const ANALYZE_RETRY_MS = 1_000;

function open(init: SqliteThreadInit, port: MessagePort): SqliteDatabase | undefined {
  const db = new (sqliteDatabase())(init.file, { timeout: 0 });
  try {
    // EXCLUSIVE locking keeps the file lock for the life of the connection, so a second server on
    // the same data directory fails here instead of writing beside us. The OS drops the lock when
    // this process dies, even on kill -9, so a crash never leaves a stale lock behind.
    if (init.exclusive) db.pragma("locking_mode = EXCLUSIVE");
    db.pragma("journal_mode = WAL");
    db.exec("BEGIN IMMEDIATE; COMMIT;");
  } catch (err) {
    db.close();
    const code = (err as { code?: string }).code ?? "";
    port.postMessage({ t: "open-failed", code, message: (err as Error).message } satisfies ThreadReply);
    return undefined;
  }
  db.pragma("synchronous = FULL");
  db.pragma("foreign_keys = ON");
  return db;
}

if (!parentPort) throw new Error("sqlite-thread.ts runs as a worker thread");
const port = parentPort;
const opened = open(workerData as SqliteThreadInit, port);
if (opened) serve(opened, port);

/**
 * The connection's prepared statements: by the id the other side gives a statement once a first run
 * has succeeded, or by its text (a bounded cache) for the rest.
 */
function statementCache(db: SqliteDatabase): (op: { sql: string; sid?: number }) => Statement {
  const bySql = new Map<string, Statement>();
  const byId = new Map<number, Statement>();
  return (op: { sql: string; sid?: number }): Statement => {
    if (op.sid !== undefined) {
      let stmt = byId.get(op.sid);
      // The other side sends the text until a first run has succeeded (sqlite-group-commit.ts).
      if (!stmt) {
        stmt = db.prepare(op.sql);
        byId.set(op.sid, stmt);
      }
      return stmt;
    }
    let stmt = bySql.get(op.sql);
    if (!stmt) {
      stmt = db.prepare(op.sql);
      if (bySql.size >= STATEMENT_CACHE_SIZE) bySql.clear();
      bySql.set(op.sql, stmt);
    }
    return stmt;
  };
}

function serve(db: SqliteDatabase, port: MessagePort): void {
  const statement = statementCache(db);
  /** Number of the open batch; 0 when none is open. */
  let batch = 0;
  let lastBatch = 0;
  let depth = 0;
  let commitScheduled = false;
  /** Units ended since the last commit whose successor was already waiting. */
  let unitsDeferred = 0;

  const beginBatch = (): void => {
    if (batch !== 0) return;
    db.exec("BEGIN IMMEDIATE");
    batch = ++lastBatch;
  };

  const fatal = (err: unknown): void => {
    port.postMessage({ t: "fatal", message: (err as Error).message ?? String(err) } satisfies ThreadReply);
    port.close();
    try {
      db.close();
    } catch {
      // the process is about to exit; nothing more to release
    }
  };

  const commit = (): void => {
    commitScheduled = false;
    unitsDeferred = 0;
    if (batch === 0 || depth > 0) return;
    try {
      // SQLite rolls a whole transaction back on its own after a severe error (I/O, full disk):
      // nothing waiting may then be answered as if it had been written.
      if (!db.inTransaction) throw new Error("the embedded store lost an open transaction");
      db.exec("COMMIT");
    } catch (err) {
      fatal(err);
      return;
    }
    const committed = batch;
    batch = 0;
    port.postMessage({ t: "committed", batch: committed } satisfies ThreadReply);
  };

  const run = (op: ThreadOp): ThreadReply => {
    switch (op.k) {
      case "query": {
        const stmt = statement(op);
        if (!stmt.readonly) beginBatch();
        if (stmt.reader) return { t: "rows", id: op.id, batch, rows: stmt.all(op.params) };
        const result = stmt.run(op.params);
        return {
          t: "changes",
          id: op.id,
          batch,
          changes: result.changes,
          insertId: BigInt(result.lastInsertRowid),
        };
      }
      case "unit-begin":
        beginBatch();
        db.exec(`SAVEPOINT unit${depth + 1}`);
        depth += 1;
        return { t: "done", id: op.id, batch };
      // A unit that cannot be released or rolled back leaves the batch in an unknown state: fatal,
      // like a failed COMMIT (the depth would no longer match SQLite's savepoints).
      case "unit-release":
        try {
          db.exec(`RELEASE unit${depth}`);
        } catch (err) {
          fatal(err);
          throw err;
        }
        depth -= 1;
        return { t: "done", id: op.id, batch };
      case "unit-rollback": {
        const name = `unit${depth}`;
        try {
          if (db.inTransaction) db.exec(`ROLLBACK TO ${name}; RELEASE ${name}`);
        } catch (err) {
          fatal(err);
          throw err;
        }
        depth -= 1;
        return { t: "done", id: op.id, batch };
      }
      case "script":
        // Migrations: their own BEGIN and COMMIT, run while no batch is open (the caller settles first).
        if (batch !== 0) throw new Error("a script cannot run inside an open batch");
        db.exec(op.sql);
        return { t: "done", id: op.id, batch: 0 };
      case "close":
        commit();
        db.close();
        return { t: "done", id: op.id, batch: 0 };
    }
  };

  // Only between batches and migrations: ANALYZE writes its statistics, and a rollback must not
  // take them along; one that finds a transaction open tries again a second later.
  db.pragma(`analysis_limit = ${ANALYSIS_ROWS}`);
  const analyze = (): void => {
    if (batch !== 0 || depth > 0 || db.inTransaction) {
      setTimeout(analyze, ANALYZE_RETRY_MS).unref();
      return;
    }
    try {
      db.exec("ANALYZE");
    } catch {
      // the statistics stay as they were; the next interval tries again
    }
  };
  setTimeout(analyze, ANALYZE_FIRST_MS).unref();
  setInterval(analyze, ANALYZE_EVERY_MS).unref();

  port.on("message", (ops: ThreadOp[]) => {
    const replies: ThreadReply[] = [];
    let closing = false;
    for (const op of ops) {
      try {
        replies.push(run(op));
      } catch (err) {
        const e = err as { code?: string; message?: string };
        replies.push({ t: "error", id: op.id, batch, code: e.code, message: e.message ?? String(err) });
      }
      if (op.k === "close") closing = true;
    }
    port.postMessage(replies);
    if (closing) return port.close();
    // A waiting unit will send its statements at once: they join this batch, and its end brings the
    // commit check back.
    const last = ops[ops.length - 1];
    if (
      last !== undefined &&
      (last.k === "unit-release" || last.k === "unit-rollback") &&
      last.more &&
      unitsDeferred < MAX_UNITS_PER_COMMIT
    ) {
      unitsDeferred += 1;
      return;
    }
    // Commit after everything already queued has run (messages are handled before immediates), so
    // one fsync covers all of it; not while a unit is open, which would split it.
    if (batch !== 0 && depth === 0 && !commitScheduled) {
      commitScheduled = true;
      setImmediate(commit);
    }
  });
  port.postMessage({ t: "open" } satisfies ThreadReply);
}
