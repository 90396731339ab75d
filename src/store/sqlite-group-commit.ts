import type { Database as SqliteDatabase, Statement } from "better-sqlite3";
import {
  type CompiledQuery,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Kysely,
  type QueryResult,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
} from "kysely";
import type { Prepared, StatementRunner } from "./prepared.js";

/**
 * The embedded store's Kysely driver, with group commit.
 *
 * With `synchronous=FULL` every COMMIT waits for an fsync, which caps a one-commit-per-request design
 * at a few thousand writes per second. Here writes go into one open transaction (a "batch"); the batch
 * commits, one fsync for all of them, on the next turn of the event loop. Callers answer only after
 * `settle()`, which resolves once the open batch is durable, so no answer ever reports a write that
 * a crash could still lose, and every answer based on a read of uncommitted data waits for it too.
 *
 * Atomicity: a failed statement rolls back alone (SQLite's ABORT), leaving the rest of the batch
 * intact; a multi-statement unit (`db.transaction()`) runs inside a SAVEPOINT while it holds the
 * single connection, so batch commits never split it. Should a COMMIT itself fail (disk full, I/O
 * error), answers already waiting cannot be trusted, and the process stops at once: the batch is
 * rolled back by SQLite, no waiting request is ever answered, and clients retry by reference.
 */
export interface GroupCommit {
  /** Resolves once everything written (or read uncommitted) so far is durable. */
  settle(): Promise<void>;
  /** Prepared hot-path statements, run in the current batch like any other statement. */
  statements: StatementRunner;
}

class Mutex {
  #locked: Promise<void> | undefined;
  get held(): boolean {
    return this.#locked !== undefined;
  }
  #release: (() => void) | undefined;
  async lock(): Promise<void> {
    while (this.#locked) await this.#locked;
    this.#locked = new Promise((resolve) => {
      this.#release = resolve;
    });
  }
  unlock(): void {
    const release = this.#release;
    this.#locked = undefined;
    this.#release = undefined;
    release?.();
  }
}

const STATEMENT_CACHE_SIZE = 500;

class Batcher implements GroupCommit {
  readonly mutex = new Mutex();
  #open = false;
  #waiters: Array<() => void> = [];
  #scheduled = false;
  #statements = new Map<string, Statement>();

  constructor(
    readonly db: SqliteDatabase,
    private readonly onCommitFailure: (err: unknown) => never,
  ) {}

  readonly statements: StatementRunner = {
    rows: <R>(statement: Prepared, params: readonly unknown[]) =>
      this.#withConnection(() => {
        const stmt = this.prepare(statement.sqlite);
        if (!stmt.readonly) this.beginWrite();
        return stmt.all(params as unknown[]) as R[];
      }),
    changes: (statement: Prepared, params: readonly unknown[]) =>
      this.#withConnection(() => {
        const stmt = this.prepare(statement.sqlite);
        if (!stmt.readonly) this.beginWrite();
        return stmt.run(params as unknown[]).changes;
      }),
  };

  /**
   * Runs a synchronous statement when no unit (SAVEPOINT) holds the connection; otherwise waits its
   * turn, so a statement never lands inside someone else's unit and is rolled back with it.
   */
  async #withConnection<T>(run: () => T): Promise<T> {
    if (!this.mutex.held) return run();
    await this.mutex.lock();
    try {
      return run();
    } finally {
      this.mutex.unlock();
    }
  }

  prepare(sql: string): Statement {
    let stmt = this.#statements.get(sql);
    if (!stmt) {
      stmt = this.db.prepare(sql);
      if (this.#statements.size >= STATEMENT_CACHE_SIZE) this.#statements.clear();
      this.#statements.set(sql, stmt);
    }
    return stmt;
  }

  /** Opens the batch before the first write; the commit is scheduled for the next loop turn. */
  beginWrite(): void {
    if (this.#open) return;
    this.db.exec("BEGIN IMMEDIATE");
    this.#open = true;
    this.#schedule();
  }

  #schedule(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    setImmediate(() => {
      this.#scheduled = false;
      void this.commit();
    });
  }

  /** Commits the open batch once no unit holds the connection. */
  async commit(): Promise<void> {
    if (!this.#open) return this.#wake();
    await this.mutex.lock();
    try {
      if (!this.#open) return this.#wake();
      if (!this.db.inTransaction) {
        // SQLite rolled the whole batch back on a severe error (I/O, full disk): nothing waiting
        // may be answered as if it had been written.
        this.onCommitFailure(new Error("the embedded store lost an open transaction"));
      }
      try {
        this.db.exec("COMMIT");
      } catch (err) {
        this.onCommitFailure(err);
      }
      this.#open = false;
      this.#wake();
    } finally {
      this.mutex.unlock();
    }
  }

  #wake(): void {
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const resolve of waiters) resolve();
  }

  settle(): Promise<void> {
    if (!this.#open) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  get open(): boolean {
    return this.#open;
  }
}

class GroupCommitConnection implements DatabaseConnection {
  constructor(private readonly batcher: Batcher) {}

  async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    const stmt = this.batcher.prepare(compiled.sql);
    if (!stmt.readonly) this.batcher.beginWrite();
    const params = compiled.parameters as unknown[];
    if (stmt.reader) return { rows: stmt.all(params) as R[] };
    const { changes, lastInsertRowid } = stmt.run(params);
    return { numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid), rows: [] };
  }

  // biome-ignore lint/correctness/useYield: streaming is not used by this codebase.
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error("streaming is not supported by the embedded store");
  }
}

class GroupCommitDriver implements Driver {
  readonly #connection: GroupCommitConnection;
  #depth = 0;

  constructor(private readonly batcher: Batcher) {
    this.#connection = new GroupCommitConnection(batcher);
  }

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    await this.batcher.mutex.lock();
    return this.#connection;
  }

  async releaseConnection(): Promise<void> {
    this.batcher.mutex.unlock();
  }

  async beginTransaction(): Promise<void> {
    this.batcher.beginWrite();
    this.batcher.db.exec(`SAVEPOINT unit${++this.#depth}`);
  }

  async commitTransaction(): Promise<void> {
    this.batcher.db.exec(`RELEASE unit${this.#depth--}`);
  }

  async rollbackTransaction(): Promise<void> {
    const name = `unit${this.#depth--}`;
    if (this.batcher.db.inTransaction) this.batcher.db.exec(`ROLLBACK TO ${name}; RELEASE ${name}`);
  }

  async destroy(): Promise<void> {
    await this.batcher.commit();
    this.batcher.db.close();
  }
}

export function createGroupCommitDialect(
  db: SqliteDatabase,
  onCommitFailure: (err: unknown) => never,
): { dialect: Dialect; groupCommit: GroupCommit } {
  const batcher = new Batcher(db, onCommitFailure);
  const dialect: Dialect = {
    createAdapter: () => new SqliteAdapter(),
    createDriver: () => new GroupCommitDriver(batcher),
    createQueryCompiler: () => new SqliteQueryCompiler(),
    createIntrospector: (k: Kysely<unknown>) => new SqliteIntrospector(k),
  };
  return { dialect, groupCommit: batcher };
}
