/**
 * The embedded store's Kysely driver, with group commit, over the store's own thread.
 *
 * With `synchronous=FULL` every COMMIT waits for an fsync, which caps a one-commit-per-request design
 * at a few thousand writes per second. Writes therefore go into one open transaction (a batch) that
 * commits, one fsync for all of them, once the statements queued meanwhile have run
 * (sqlite-thread.ts). Callers answer only after `settle()`, which resolves once the batches their
 * statements ran in are durable, so no answer ever reports a write that a crash could still lose,
 * and every answer based on a read of uncommitted data waits for it too.
 *
 * The connection, the statements and the fsyncs live on that thread, so the thread serving HTTP
 * neither runs them nor waits for the disk: it sends what to run, batched per turn of its event
 * loop (one message each way for everything a turn asked), and goes on serving.
 *
 * Atomicity: a failed statement rolls back alone (SQLite's ABORT), leaving the rest of the batch
 * intact; a multi-statement unit (`db.transaction()`) runs inside a SAVEPOINT, and while it runs no
 * other statement is sent (a mutex here) and no commit happens (the thread waits for its RELEASE).
 * Should a COMMIT itself fail (disk full, I/O error), answers already waiting cannot be trusted, and
 * the process stops at once: the batch is rolled back by SQLite, no waiting request is ever
 * answered, and clients retry by reference.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, renameSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
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
import type { SqliteThreadInit, ThreadOp, ThreadReply } from "./sqlite-thread-protocol.js";

export interface GroupCommit {
  /** Resolves once everything written (or read uncommitted) so far is durable. */
  settle(): Promise<void>;
  /** Prepared hot-path statements, run in the current batch like any other statement. */
  statements: StatementRunner;
  /** Runs a script with its own BEGIN and COMMIT (migrations), after the open batch has committed. */
  script(sql: string): Promise<void>;
  /** Commits what is open, closes the database and stops the thread; later calls resolve at once. */
  close(): Promise<void>;
}

export interface SqliteThreadOptions extends SqliteThreadInit {
  /** Called when a commit fails; must not return (the process stops). */
  onCommitFailure(err: unknown): never;
}

/** The open file is another server's (SQLITE_BUSY on the exclusive lock). */
export class SqliteOpenError extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
  }
}

class Mutex {
  #locked: Promise<void> | undefined;
  #release: (() => void) | undefined;
  get held(): boolean {
    return this.#locked !== undefined;
  }
  /** Resolves once nobody holds it, without taking it. */
  async free(): Promise<void> {
    await this.lock();
    this.unlock();
  }
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

/** A caller of settle(), waiting for the batch it saw to be durable. */
interface Waiter {
  batch: number;
  resolve(): void;
}

type Settled = Extract<ThreadReply, { id: number }>;

/**
 * The thread's young generation is kept small: what it allocates (a statement's parameters and
 * rows, on their way to the other thread) dies at once, and V8's default lets each of the
 * process's two heaps grow tens of megabytes of it under load, which the server's memory target
 * (300 MB under the volume benchmark) cannot spare.
 */
const THREAD_LIMITS = { maxYoungGenerationSizeMb: 8 };

/**
 * Where the thread's code is: the compiled file next to this one, or, when this module runs as
 * TypeScript (the test suite), the source bundled into one file by esbuild (sourceThread).
 */
function startThread(init: SqliteThreadInit): Worker {
  const here = import.meta.url;
  const file = here.endsWith(".ts") ? sourceThread(here) : new URL("./sqlite-thread.js", here);
  return new Worker(file, { workerData: init, resourceLimits: THREAD_LIMITS });
}

let sourceThreadFile: URL | undefined;

/**
 * The thread's TypeScript source as one ES module, written once per process under
 * node_modules/.cache (packages stay imports, resolved from there). Loading the source through tsx
 * in each new thread cost over half a second per store opened; the suite opens hundreds.
 */
function sourceThread(here: string): URL {
  if (sourceThreadFile) return sourceThreadFile;
  const load = createRequire(here);
  const esbuild = load("esbuild") as typeof import("esbuild");
  const built = esbuild.buildSync({
    entryPoints: [fileURLToPath(new URL("./sqlite-thread.ts", here))],
    bundle: true,
    format: "esm",
    platform: "node",
    packages: "external",
    write: false,
  });
  const code = built.outputFiles[0]?.text ?? "";
  const name = `sqlite-thread-${createHash("sha256").update(code).digest("hex").slice(0, 16)}.mjs`;
  const dir = join(dirname(load.resolve("esbuild/package.json")), "..", ".cache", "payintake");
  const path = join(dir, name);
  if (!existsSync(path)) {
    mkdirSync(dir, { recursive: true });
    // Written aside and renamed: another test process may be loading the same file.
    const aside = `${path}.${process.pid}`;
    writeFileSync(aside, code);
    renameSync(aside, path);
  }
  sourceThreadFile = pathToFileURL(path);
  return sourceThreadFile;
}

class SqliteThread implements GroupCommit {
  readonly mutex = new Mutex();
  /** Units waiting for the mutex (ThreadDriver.beginTransaction). */
  unitsWaiting = 0;
  readonly #worker: Worker;
  #outbox: ThreadOp[] = [];
  #flushScheduled = false;
  #inFlight = false;
  #nextId = 1;
  readonly #pending = new Map<number, { resolve(r: Settled): void; reject(err: Error): void }>();
  readonly #sids = new WeakMap<Prepared, number>();
  /** Statements the thread has prepared: sent by number alone from then on. */
  readonly #prepared = new WeakSet<Prepared>();
  #nextSid = 1;
  /** The highest batch a statement ran in, and the highest batch known durable. */
  #seen = 0;
  #committed = 0;
  #waiters: Waiter[] = [];
  #failure: Error | undefined;
  #opened = false;
  #closing = false;
  /** The thread keeps the process alive only while something waits on it. */
  #referenced = true;

  constructor(
    init: SqliteThreadInit,
    private readonly onCommitFailure: (err: unknown) => never,
    ready: { resolve(): void; reject(err: Error): void },
  ) {
    this.#worker = startThread(init);
    this.#worker.on("message", (msg: ThreadReply | Settled[]) => {
      if (Array.isArray(msg)) return this.#settleAll(msg);
      switch (msg.t) {
        case "open":
          this.#opened = true;
          this.#reference();
          return ready.resolve();
        case "open-failed":
          return ready.reject(new SqliteOpenError(msg.message, msg.code));
        case "committed":
          return this.#durable(msg.batch);
        case "fatal":
          return this.onCommitFailure(new Error(msg.message));
      }
    });
    // A thread that dies takes the open batch with it: crash-only, as for a failed COMMIT.
    const died = (err: Error) => {
      this.#failure = err;
      if (!this.#opened) return ready.reject(err);
      this.onCommitFailure(err);
    };
    this.#worker.on("error", died);
    this.#worker.on("exit", (code) => {
      const err = new Error(`the embedded store's thread stopped (exit code ${code})`);
      this.#failAll(err);
      if (!this.#closing) died(err);
    });
  }

  #reference(): void {
    // An open batch counts too: the process must not exit before its COMMIT.
    const wanted = this.#pending.size > 0 || this.#waiters.length > 0 || this.#seen > this.#committed;
    if (wanted === this.#referenced) return;
    this.#referenced = wanted;
    if (wanted) this.#worker.ref();
    else this.#worker.unref();
  }

  readonly statements: StatementRunner = {
    rows: async <R>(statement: Prepared, params: readonly unknown[]) => {
      const reply = await this.#run(statement, params);
      return (reply.t === "rows" ? reply.rows : []) as R[];
    },
    changes: async (statement: Prepared, params: readonly unknown[]) => {
      const reply = await this.#run(statement, params);
      return reply.t === "changes" ? reply.changes : 0;
    },
  };

  /**
   * A hot-path statement, sent by number once the thread has it. It waits while a unit holds the
   * connection, so it never lands inside someone else's SAVEPOINT and is rolled back with it.
   */
  async #run(statement: Prepared, params: readonly unknown[]): Promise<Settled> {
    if (this.mutex.held) await this.mutex.free();
    let sid = this.#sids.get(statement);
    if (sid === undefined) {
      sid = this.#nextSid++;
      this.#sids.set(statement, sid);
    }
    // The text goes along until the thread has prepared it once; a failed first prepare is retried.
    const known = this.#prepared.has(statement);
    const reply = await this.send({ id: 0, k: "query", sql: known ? "" : statement.sqlite, sid, params });
    if (!known) this.#prepared.add(statement);
    return reply;
  }

  /**
   * Queues an operation. One message is in flight at a time: what is asked while the thread works
   * on it goes as the next message, so under load each message carries many operations (a message
   * costs more than the statement it carries) and at idle an operation leaves on this loop turn.
   */
  send(op: ThreadOp): Promise<Settled> {
    if (this.#failure) return Promise.reject(this.#failure);
    // The caller's `id: 0` is replaced here, not by `{ ...op, id }`: spreads are slow on Node 20's V8.
    const id = this.#nextId++;
    op.id = id;
    const promise = new Promise<Settled>((resolve, reject) => this.#pending.set(id, { resolve, reject }));
    this.#outbox.push(op);
    if (!this.#referenced) this.#reference();
    this.#scheduleFlush();
    return promise.then((reply) => {
      if (reply.t !== "error") return reply;
      throw Object.assign(new Error(reply.message), { code: reply.code });
    });
  }

  #scheduleFlush(): void {
    if (this.#flushScheduled || this.#inFlight || this.#outbox.length === 0) return;
    this.#flushScheduled = true;
    setImmediate(() => this.#flush());
  }

  #flush(): void {
    this.#flushScheduled = false;
    const ops = this.#outbox;
    if (ops.length === 0) return;
    this.#outbox = [];
    try {
      this.#worker.postMessage(ops);
      this.#inFlight = true;
    } catch {
      // A value that cannot cross threads (a function, a symbol). Nothing was sent: each operation
      // goes on its own, and only those that cannot cross fail.
      for (const op of ops) {
        try {
          this.#worker.postMessage([op]);
          this.#inFlight = true;
        } catch (err) {
          this.#reject(op.id, err as Error);
        }
      }
    }
  }

  #reject(id: number, err: Error): void {
    const pending = this.#pending.get(id);
    this.#pending.delete(id);
    pending?.reject(err);
  }

  /** Everything still waiting on the thread, once it can no longer answer. */
  #failAll(err: Error): void {
    this.#failure ??= err;
    for (const id of [...this.#pending.keys()]) this.#reject(id, err);
    for (const op of this.#outbox.splice(0)) this.#reject(op.id, err);
    this.#reference();
  }

  #settleAll(replies: Settled[]): void {
    this.#inFlight = false;
    this.#scheduleFlush();
    for (const reply of replies) {
      if (reply.batch > this.#seen) this.#seen = reply.batch;
      const pending = this.#pending.get(reply.id);
      this.#pending.delete(reply.id);
      pending?.resolve(reply);
    }
    this.#reference();
  }

  #durable(batch: number): void {
    this.#committed = batch;
    const still: Waiter[] = [];
    for (const w of this.#waiters) {
      if (w.batch <= batch) w.resolve();
      else still.push(w);
    }
    this.#waiters = still;
    this.#reference();
  }

  settle(): Promise<void> {
    const batch = this.#seen;
    if (batch <= this.#committed) return Promise.resolve();
    return new Promise((resolve) => {
      this.#waiters.push({ batch, resolve });
      this.#reference();
    });
  }

  async script(sql: string): Promise<void> {
    await this.mutex.lock();
    try {
      await this.settle();
      await this.send({ id: 0, k: "script", sql });
    } finally {
      this.mutex.unlock();
    }
  }

  #closed: Promise<void> | undefined;

  close(): Promise<void> {
    this.#closed ??= this.#close();
    return this.#closed;
  }

  async #close(): Promise<void> {
    await this.mutex.lock();
    try {
      this.#closing = true;
      const closed = this.send({ id: 0, k: "close" });
      // Nothing may be asked after the close: it would never be answered.
      this.#failure = new Error("the embedded store is closed");
      await closed;
    } finally {
      this.mutex.unlock();
    }
    await this.#worker.terminate();
  }
}

class ThreadConnection implements DatabaseConnection {
  /** True while this connection runs a unit (holds the mutex). */
  inUnit = false;

  constructor(private readonly thread: SqliteThread) {}

  async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    if (!this.inUnit && this.thread.mutex.held) await this.thread.mutex.free();
    const reply = await this.thread.send({
      id: 0,
      k: "query",
      sql: compiled.sql,
      params: compiled.parameters,
    });
    if (reply.t === "rows") return { rows: reply.rows as R[] };
    if (reply.t === "changes")
      return { numAffectedRows: BigInt(reply.changes), insertId: reply.insertId, rows: [] };
    return { rows: [] };
  }

  // biome-ignore lint/correctness/useYield: streaming is not used by this codebase.
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error("streaming is not supported by the embedded store");
  }
}

class ThreadDriver implements Driver {
  constructor(private readonly thread: SqliteThread) {}

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    return new ThreadConnection(this.thread);
  }

  async releaseConnection(): Promise<void> {}

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    this.thread.unitsWaiting += 1;
    try {
      await this.thread.mutex.lock();
    } finally {
      this.thread.unitsWaiting -= 1;
    }
    (connection as ThreadConnection).inUnit = true;
    try {
      await this.thread.send({ id: 0, k: "unit-begin" });
    } catch (err) {
      this.#end(connection);
      throw err;
    }
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await this.thread.send({ id: 0, k: "unit-release", more: this.thread.unitsWaiting > 0 });
    // Only once released: after a failed release Kysely rolls the unit back, still holding the lock.
    this.#end(connection);
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    try {
      await this.thread.send({ id: 0, k: "unit-rollback", more: this.thread.unitsWaiting > 0 });
    } finally {
      this.#end(connection);
    }
  }

  #end(connection: DatabaseConnection): void {
    const unit = connection as ThreadConnection;
    if (!unit.inUnit) return;
    unit.inUnit = false;
    this.thread.mutex.unlock();
  }

  async destroy(): Promise<void> {
    await this.thread.close();
  }
}

/** Starts the store's thread on `file` and resolves once the database is open. */
export async function openGroupCommit(
  opts: SqliteThreadOptions,
): Promise<{ dialect: Dialect; groupCommit: GroupCommit }> {
  let ready!: { resolve(): void; reject(err: Error): void };
  const opened = new Promise<void>((resolve, reject) => {
    ready = { resolve, reject };
  });
  const thread = new SqliteThread(
    { file: opts.file, exclusive: opts.exclusive },
    opts.onCommitFailure,
    ready,
  );
  await opened;
  const dialect: Dialect = {
    createAdapter: () => new SqliteAdapter(),
    createDriver: () => new ThreadDriver(thread),
    createQueryCompiler: () => new SqliteQueryCompiler(),
    createIntrospector: (k: Kysely<unknown>) => new SqliteIntrospector(k),
  };
  return { dialect, groupCommit: thread };
}
