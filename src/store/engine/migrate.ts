/**
 * Running the migrations (src/store/migrations/) on either store: each with its bookkeeping row in
 * one transaction, and the indexes of large tables built beside the writes on PostgreSQL.
 */
import { type Kysely, sql } from "kysely";
import type pg from "pg";
import { migrations } from "../migrations/index.js";
import type { IndexBuild, PgExtension } from "../migrations/migration.js";
import type { Database } from "../schema.js";

type Dialect = "sqlite" | "postgres";

type Found = { found: number };

export async function appliedMigrations(db: Kysely<Database>, dialect: Dialect): Promise<string[]> {
  const exists =
    dialect === "sqlite"
      ? sql.raw<Found>("SELECT count(*) AS found FROM sqlite_master WHERE name = 'schema_migrations'")
      : sql.raw<Found>("SELECT count(*)::int AS found WHERE to_regclass('schema_migrations') IS NOT NULL");
  const [row] = (await exists.execute(db)).rows;
  if (!row?.found) return [];
  return (await db.selectFrom("schema_migrations").select("version").execute()).map((r) => r.version);
}

export async function applyMigrations(
  db: Kysely<Database>,
  dialect: Dialect,
  exec: (script: string) => Promise<void>,
): Promise<string[]> {
  await exec(
    "CREATE TABLE IF NOT EXISTS schema_migrations (version TEXT PRIMARY KEY, applied_at BIGINT NOT NULL)",
  );
  const done = new Set(
    (await db.selectFrom("schema_migrations").select("version").execute()).map((r) => r.version),
  );
  const applied: string[] = [];
  for (const migration of migrations) {
    if (done.has(migration.version)) continue;
    if (!/^[0-9A-Za-z_]+$/.test(migration.version))
      throw new Error(`bad migration version ${migration.version}`);
    // Each migration and its bookkeeping row commit together, or not at all (both stores have
    // transactional DDL).
    const script = dialect === "sqlite" ? migration.sqlite : migration.postgres;
    const inTransaction = await buildBeside(db, dialect, exec, migration.indexes ?? []);
    await exec("BEGIN");
    try {
      if (script.trim() !== "") await exec(script);
      for (const index of inTransaction) {
        await exec(`CREATE INDEX IF NOT EXISTS ${index.name} ON ${index.table} ${index.definition}`);
        if (index.replaces) await exec(`DROP INDEX IF EXISTS ${index.replaces}`);
      }
      await exec(
        `INSERT INTO schema_migrations (version, applied_at) VALUES ('${migration.version}', ${Date.now()})`,
      );
      await exec("COMMIT");
    } catch (err) {
      await exec("ROLLBACK").catch(() => {});
      throw err;
    }
    applied.push(migration.version);
  }
  // The planner's statistics for what the migrations made (the embedded store's thread takes them
  // again every ten minutes); PostgreSQL's autovacuum analyzes new indexes' tables by itself.
  if (dialect === "sqlite" && applied.length > 0) await exec("ANALYZE");
  return applied;
}

/** The indexes that need an extension (IndexBuild.extensions), which a store may lack. */
const optionalIndexes = () => migrations.flatMap((m) => m.indexes ?? []).filter((i) => i.extensions);
/** Those that no later index replaces: the ones a store should end with. */
const wantedOptionalIndexes = () => {
  const replaced = new Set(optionalIndexes().map((i) => i.replaces));
  return optionalIndexes().filter((i) => !replaced.has(i.name));
};

async function indexExists(db: Kysely<Database>, name: string): Promise<boolean> {
  const found = await sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_index i
    JOIN pg_class c ON c.oid = i.indexrelid
    WHERE c.relname = ${name} AND c.relnamespace = current_schema()::regnamespace AND i.indisvalid`.execute(
    db,
  );
  return Number(found.rows[0]?.n) > 0;
}

/**
 * The optional indexes of applied migrations that the store lacks, as "name (extension)": their
 * extension could not be installed when the migration ran. Empty on SQLite, which needs none.
 */
export async function missingIndexes(db: Kysely<Database>, dialect: Dialect): Promise<string[]> {
  if (dialect === "sqlite") return [];
  const missing: string[] = [];
  for (const index of wantedOptionalIndexes())
    if (!(await indexExists(db, index.name)))
      missing.push(`${index.name} (${(index.extensions ?? []).join(", ")})`);
  return missing;
}

/**
 * Builds the optional indexes that a migration applied without (its extension could not be had
 * then) once the extension can be had: after a DBA installs it, the next start or `payintake
 * migrate` builds them, as a new migration's would be built.
 */
export async function buildMissingIndexes(
  db: Kysely<Database>,
  exec: (script: string) => Promise<void>,
): Promise<void> {
  const byName = new Map(optionalIndexes().map((i) => [i.name, i]));
  for (const wanted of wantedOptionalIndexes()) {
    // The index wanted, else (its extensions still missing) the one it replaces, as before it.
    for (let index = byName.get(wanted.name); index; index = byName.get(index.replaces ?? "")) {
      if (await indexExists(db, index.name)) break;
      const built = await buildBeside(db, "postgres", exec, [index]);
      for (const small of built) {
        await exec(`CREATE INDEX IF NOT EXISTS ${small.name} ON ${small.table} ${small.definition}`);
        if (small.replaces) await exec(`DROP INDEX CONCURRENTLY IF EXISTS ${small.replaces}`);
      }
      if (await indexExists(db, index.name)) break;
    }
  }
}

/**
 * Below this many rows a PostgreSQL index is built in the migration's transaction: writes to a
 * small table wait a moment, and nothing waits for CONCURRENTLY, which waits in turn for every
 * transaction older than it in the whole database.
 */
const CONCURRENT_FROM_ROWS = 50_000;

/**
 * A migration's indexes (Migration.indexes) on PostgreSQL's large tables, built beside the writes
 * before its transaction; what is left is built in it. A build that failed or was cut off leaves
 * an invalid index behind, which IF NOT EXISTS would take for done: it is dropped first.
 */
async function buildBeside(
  db: Kysely<Database>,
  dialect: Dialect,
  exec: (script: string) => Promise<void>,
  indexes: readonly IndexBuild[],
): Promise<IndexBuild[]> {
  if (dialect === "sqlite")
    return indexes.filter((index) => index.extensions === undefined && !index.postgresOnly);
  const later: IndexBuild[] = [];
  for (const wanted of indexes) {
    const index = await withExtensions(db, exec, wanted);
    if (index === undefined) continue;
    if (!/^[a-z_]+$/.test(index.name) || !/^[a-z_]+$/.test(index.table))
      throw new Error(`bad index ${index.name} on ${index.table}`);
    await dropIfInvalid(db, exec, index.name);
    const sized = await sql<{ n: number }>`SELECT count(*)::int AS n
      FROM (SELECT 1 FROM ${sql.table(index.table)} LIMIT ${CONCURRENT_FROM_ROWS}) AS s`.execute(db);
    if (Number(sized.rows[0]?.n) < CONCURRENT_FROM_ROWS) later.push(index);
    else {
      await buildConcurrently(db, exec, index);
      if (index.replaces) await exec(`DROP INDEX CONCURRENTLY IF EXISTS ${index.replaces}`);
    }
  }
  return later;
}

/**
 * Builds after a deadlock: an instance of a version before this one waits for the migrations' lock
 * in one statement, a transaction that the build waits for while that instance waits for us, and
 * PostgreSQL fails one of the two. When it fails the build, the build goes again.
 */
const DEADLOCK_TRIES = 5;

async function buildConcurrently(
  db: Kysely<Database>,
  exec: (script: string) => Promise<void>,
  index: IndexBuild,
): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await exec(
        `CREATE INDEX CONCURRENTLY IF NOT EXISTS ${index.name} ON ${index.table} ${index.definition}`,
      );
      return;
    } catch (err) {
      if ((err as { code?: string }).code !== "40P01" || attempt >= DEADLOCK_TRIES) throw err;
      await dropIfInvalid(db, exec, index.name);
    }
  }
}

/** An index a failed or cut-off build left invalid, dropped without locking out the writes. */
async function dropIfInvalid(
  db: Kysely<Database>,
  exec: (script: string) => Promise<void>,
  name: string,
): Promise<void> {
  const invalid = await sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_index i
    JOIN pg_class c ON c.oid = i.indexrelid
    WHERE c.relname = ${name} AND c.relnamespace = current_schema()::regnamespace AND NOT i.indisvalid`.execute(
    db,
  );
  if (Number(invalid.rows[0]?.n) > 0) await exec(`DROP INDEX CONCURRENTLY IF EXISTS ${name}`);
}

/**
 * The index with its extensions' schemas named in it, each extension installed if it was not (into
 * a schema of its own, so that no schema of the service's holds it: a dropped schema would take the
 * extension, and every index on it, along); undefined when one cannot be installed (no privilege,
 * not available on this server).
 */
async function withExtensions(
  db: Kysely<Database>,
  exec: (script: string) => Promise<void>,
  index: IndexBuild,
): Promise<IndexBuild | undefined> {
  let definition = index.definition;
  for (const name of index.extensions ?? []) {
    const schema = await extensionSchema(db, exec, name);
    if (schema === undefined) return undefined;
    definition = definition.replaceAll(`{${name}}`, `"${schema.replaceAll('"', '""')}"`);
  }
  return { ...index, definition };
}

async function extensionSchema(
  db: Kysely<Database>,
  exec: (script: string) => Promise<void>,
  name: PgExtension,
): Promise<string | undefined> {
  const where = async () =>
    (
      await sql<{ schema: string }>`SELECT n.nspname AS schema FROM pg_extension e
        JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = ${name}`.execute(db)
    ).rows[0]?.schema;
  const schema = await where();
  if (schema !== undefined) return schema;
  try {
    await exec(
      `CREATE SCHEMA IF NOT EXISTS payintake_ext; CREATE EXTENSION IF NOT EXISTS ${name} SCHEMA payintake_ext`,
    );
  } catch {
    return undefined;
  }
  return where();
}

const MIGRATION_LOCK_POLL_MS = 100;

/**
 * Waits for the migrations' advisory lock by asking again and again rather than in one statement:
 * a statement waiting for the lock is a transaction, and the instance that holds the lock may be
 * building an index CONCURRENTLY, which waits for every transaction older than it to end. The two
 * would wait for each other until PostgreSQL broke the deadlock by failing one of them.
 */
export async function migrationLock(client: pg.PoolClient): Promise<void> {
  for (;;) {
    const got = await client.query<{ locked: boolean }>("SELECT pg_try_advisory_lock(727274) AS locked");
    if (got.rows[0]?.locked) return;
    await new Promise((resolve) => setTimeout(resolve, MIGRATION_LOCK_POLL_MS));
  }
}
