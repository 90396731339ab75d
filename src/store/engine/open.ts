import { chmodSync, closeSync, mkdirSync, openSync } from "node:fs";
import { join, resolve } from "node:path";
import { Kysely, PostgresDialect, sql } from "kysely";
import pg from "pg";
import type { Database } from "../schema.js";
import { type ChangeFeed, createPgChangeFeed, noChangeFeed } from "./change-feed.js";
import {
  appliedMigrations,
  applyMigrations,
  buildMissingIndexes,
  migrationLock,
  missingIndexes,
} from "./migrate.js";
import type { Prepared, StatementRunner } from "./prepared.js";
import { holdServingLock, type ServingLock, withoutServers } from "./serving-lock.js";
import { openGroupCommit, SqliteOpenError } from "./sqlite-group-commit.js";
import { openInline } from "./sqlite-inline.js";

export type Dialect = "sqlite" | "postgres";

export interface Store {
  db: Kysely<Database>;
  dialect: Dialect;
  /**
   * Resolves once every write made so far is durable. Answers wait for it (main/app.ts), so no
   * client is told of a write a crash could still lose. Immediate on PostgreSQL, where each
   * statement commits on its own; the embedded store commits writes in groups.
   */
  settle(): Promise<void>;
  /** Hot-path statements, prepared once, without the query builder (store/engine/prepared.ts). */
  prepared: StatementRunner;
  /** Whether concurrent deposits share their statements (PostgreSQL's batches, store/transactions/transaction-batches.ts). */
  batched: boolean;
  /** A round trip to the store, for readiness probes; throws when it cannot answer. */
  ping(): Promise<void>;
  /**
   * The database server's clock (epoch ms), which every instance on one PostgreSQL shares;
   * undefined on the embedded store, where one process is the only clock there is.
   */
  databaseTime(): Promise<number | undefined>;
  /** Operators' changes, told to every instance sharing the database (change-feed.ts). */
  changes: ChangeFeed;
  /** Applies every migration not yet applied; safe to call from several instances at once. */
  migrate(): Promise<string[]>;
  /** The versions of the migrations applied so far, without writing anything (none on a new store). */
  appliedMigrations(): Promise<string[]>;
  /**
   * Indexes the migrations ask for that this store lacks, because the PostgreSQL extension they need
   * could not be installed (migrate.ts, missingIndexes); the searches they serve read the table.
   */
  missingIndexes(): Promise<string[]>;
  /**
   * Marks this process as a server of the store until close(), so that work needing the store to
   * itself refuses meanwhile (serving-lock.ts). `regained` runs whenever the mark is taken again
   * after a lost connection. The embedded store's file lock is such a mark already. Returns whether
   * the mark is held at the moment (always, on the embedded store).
   */
  holdServingLock(regained: () => Promise<void>): Promise<() => boolean>;
  /**
   * Runs `work` (on one connection) while no server holds the store; "in_use" when one does. On
   * the embedded store this process holds the file, so none can.
   */
  withoutServers<T>(work: (db: Kysely<Database>) => Promise<T>): Promise<T | "in_use">;
  close(): Promise<void>;
}

export class StoreLockedError extends Error {}

export interface StoreOptions {
  databaseUrl: string | undefined;
  dataDir: string;
  pgPoolSize: number;
  /** The most one PostgreSQL statement may run or wait for a lock (DEFAULT_PG_STATEMENT_TIMEOUT_MS). */
  pgStatementTimeoutMs?: number;
  /**
   * The machinery under the store, both on unless measuring what each buys (ADR 0012): the embedded
   * store's thread with its group commit, and PostgreSQL's batches of the deposits' two statements.
   */
  engine?: StoreEngine;
}

export interface StoreEngine {
  sqliteThread: boolean;
  pgBatches: boolean;
}

/** When PAYINTAKE_PG_STATEMENT_TIMEOUT_MS is not set. */
export const DEFAULT_PG_STATEMENT_TIMEOUT_MS = 30_000;

export async function openStore(opts: StoreOptions): Promise<Store> {
  return opts.databaseUrl
    ? openPostgres(
        opts.databaseUrl,
        opts.pgPoolSize,
        opts.pgStatementTimeoutMs ?? DEFAULT_PG_STATEMENT_TIMEOUT_MS,
        opts.engine?.pgBatches ?? true,
      )
    : openSqlite(opts.dataDir, opts.engine?.sqliteThread ?? true);
}

/**
 * The database file and its journals readable by this user only: they hold full IBANs, payers'
 * names and operators' password hashes, and a file is otherwise created 0644. SQLite gives the WAL
 * the main file's permissions; older files are tightened at start.
 */
function ownerOnly(file: string): void {
  closeSync(openSync(file, "a", 0o600));
  for (const f of [file, `${file}-wal`, `${file}-shm`, `${file}-journal`]) {
    try {
      chmodSync(f, 0o600);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
    }
  }
}

async function openSqlite(dataDir: string, onThread: boolean): Promise<Store> {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const file = join(dataDir, "payintake.db");
  ownerOnly(file);
  const opened = onThread
    ? openGroupCommit({
        file,
        // The thread holds the file lock for the life of the process (sqlite-thread.ts).
        exclusive: true,
        onCommitFailure(err) {
          // Crash-only: the batch is gone and no waiting request may be answered as if it were written.
          process.stderr.write(
            `payintake: fatal: the embedded store failed to commit: ${(err as Error).message}\n`,
          );
          process.exit(70);
        },
      })
    : Promise.resolve().then(() => openInline(file, true));
  const { dialect, groupCommit } = await opened.catch((err: unknown) => {
    if (err instanceof SqliteOpenError && err.code.startsWith("SQLITE_BUSY")) {
      throw new StoreLockedError(
        `the data directory ${resolve(dataDir)} is in use by another payintake server; stop it or set PAYINTAKE_DATA_DIR`,
      );
    }
    throw err;
  });
  const db = new Kysely<Database>({ dialect });
  return {
    db,
    dialect: "sqlite",
    settle: () => groupCommit.settle(),
    prepared: groupCommit.statements,
    batched: false,
    async ping() {
      await sql`SELECT 1`.execute(db);
    },
    async databaseTime() {
      return undefined;
    },
    changes: noChangeFeed,
    async holdServingLock() {
      return () => true;
    },
    withoutServers: (work) => work(db),
    async migrate() {
      // Each script waits for the open batch to commit; a migration's own BEGIN … COMMIT spans several
      // scripts, which is safe because migrations run at start, before anything else uses the store.
      return applyMigrations(db, "sqlite", (script) => groupCommit.script(script));
    },
    appliedMigrations: () => appliedMigrations(db, "sqlite"),
    missingIndexes: () => missingIndexes(db, "sqlite"),
    async close() {
      // Kysely closes the driver only if it was ever used; the thread is closed either way.
      await db.destroy();
      await groupCommit.close();
    },
  };
}

/** An unnamed statement is planned at each execution; a named one once per connection (prepared.ts). */
function pgQuery(statement: Prepared, params: readonly unknown[]): pg.QueryConfig {
  return statement.planEachTime
    ? { text: statement.postgres, values: params as unknown[] }
    : { name: statement.name, text: statement.postgres, values: params as unknown[] };
}

/** How long PostgreSQL lets one of our transactions sit idle between statements (see the pool). */
export const IDLE_IN_TRANSACTION_LIMIT_MS = 10_000;

function openPostgres(url: string, poolSize: number, statementTimeoutMs: number, batched: boolean): Store {
  const pool = new pg.Pool({
    connectionString: url,
    max: poolSize,
    // A statement waiting on a lock someone else holds (a DBA's session, another version's
    // migration) would wait for ever: its request never answered, /readyz still saying ready, and a
    // SIGTERM waiting with it. With a timeout it fails (SQLSTATE 57014, nothing written) and the
    // request with it.
    statement_timeout: statementTimeoutMs,
    connectionTimeoutMillis: 5_000,
    idleTimeoutMillis: 30_000,
    // A connection whose server or network vanished without a word is probed after 10 s idle,
    // not the kernel's two hours. Only the first probe is ours: Node cannot set their interval, so
    // with Linux's defaults (75 s, 9 probes) an idle connection is given up after about 11
    // minutes, and one with a statement in flight waits for TCP's retransmissions (about 15). The
    // hot-path batches give up after 10 s on their own (store/transactions/transaction-batches.ts); other statements
    // wait that long (the requests behind them answer nothing: clients time out and retry).
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
    // The other side of the same problem: an instance that stops in the middle of a transaction
    // (a paused container, a partition, a process stopped) without its connection closing leaves
    // PostgreSQL holding that transaction and its row locks for as long as the connection looks
    // alive: hours. Another instance's decision on that row waited on the lock without end, a
    // deposit for that user blocked its whole insert batch, and auto-cancel skipped the row. Our
    // transactions never wait between their statements for anything but the database, so one idle
    // this long is stuck: PostgreSQL ends its session, the transaction rolls back as a whole, and
    // the stuck instance's commit fails (its answer is a 500).
    idle_in_transaction_session_timeout: IDLE_IN_TRANSACTION_LIMIT_MS,
    // BIGINT columns hold epoch milliseconds and minor units, both far below 2^53.
    types: {
      getTypeParser: (oid: number, format?: "text" | "binary") =>
        oid === 20 ? (v: string) => Number(v) : pg.types.getTypeParser(oid, format),
    } as pg.CustomTypesConfig,
  });
  // An idle client that loses its server (restart, network) emits here; the pool replaces it.
  pool.on("error", () => {});
  // A checked-out client losing its server between two queries emits "error" on itself; without a
  // listener that would crash the process. Its next query fails instead, and the pool drops it.
  pool.on("connect", (client) => {
    client.on("error", () => {});
  });
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  const settled = Promise.resolve();
  const changes = createPgChangeFeed(url, pool);
  let servingLock: ServingLock | undefined;
  return {
    db,
    dialect: "postgres",
    settle: () => settled,
    async ping() {
      await pool.query("SELECT 1");
    },
    async databaseTime() {
      // clock_timestamp(), not now(): the time of this statement, not of its transaction.
      const result = await pool.query<{ ms: string }>(
        "SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint AS ms",
      );
      return Number(result.rows[0]?.ms);
    },
    batched,
    prepared: {
      async rows<R>(statement: Prepared, params: readonly unknown[]) {
        const result = await pool.query(pgQuery(statement, params));
        return result.rows as R[];
      },
      async changes(statement: Prepared, params: readonly unknown[]) {
        const result = await pool.query(pgQuery(statement, params));
        return result.rowCount ?? 0;
      },
    },
    async migrate() {
      const client = await pool.connect();
      try {
        // Unbounded here only: waiting for another instance's migrations, and a migration that
        // rewrites a large table, may take longer than any request should.
        await client.query("SET statement_timeout = 0");
        // One instance migrates at a time; the others wait here and then find nothing to do.
        await migrationLock(client);
        try {
          const exec = async (script: string) => {
            await client.query(script);
          };
          const applied = await applyMigrations(db, "postgres", exec);
          await buildMissingIndexes(db, exec);
          return applied;
        } finally {
          await client.query("SELECT pg_advisory_unlock(727274)");
        }
      } finally {
        // Back to the pool with the bound every other statement has (the connection's default).
        await client.query("RESET statement_timeout").then(
          () => client.release(),
          (err: Error) => client.release(err),
        );
      }
    },
    appliedMigrations: () => appliedMigrations(db, "postgres"),
    missingIndexes: () => missingIndexes(db, "postgres"),
    changes,
    async holdServingLock(regained) {
      servingLock ??= await holdServingLock(url, regained);
      return servingLock.held;
    },
    withoutServers: (work) => withoutServers(db, work),
    async close() {
      await servingLock?.close();
      await changes.close();
      await db.destroy();
    },
  };
}
