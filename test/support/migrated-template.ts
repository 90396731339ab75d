import { createHash, randomBytes } from "node:crypto";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { openStore } from "../../src/store/engine/open.js";

/**
 * Migrated databases to copy, so that a test's fresh store does not run every migration again:
 * the suite opens a few hundred stores, and migrating one costs about a second on PostgreSQL.
 *
 * A template is named by the digest of src/ (a migration may use any of it), made once by whichever
 * test process needs it first (the others wait on an advisory lock, or find the file), and copied
 * for each store: `CREATE DATABASE … TEMPLATE` on PostgreSQL, a file copy on SQLite. A copy is what
 * a fresh store is after `migrate()`: the tests that need a store without its migrations ask for
 * an empty one (harness.ts, `storeEnv(kind, { empty: true })`).
 */
const SRC = new URL("../../src/", import.meta.url);

let digest: string | undefined;
function sourceDigest(): string {
  if (digest) return digest;
  const hash = createHash("sha256");
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else {
        hash.update(`${path.slice(SRC.pathname.length)}\0`);
        hash.update(readFileSync(path));
      }
    }
  };
  walk(SRC.pathname);
  digest = hash.digest("hex").slice(0, 16);
  return digest;
}

/** Any number that the suite uses for no other advisory lock. */
const TEMPLATE_LOCK = 7_412_050_116;
const TEMPLATE_PREFIX = "payintake_tmpl_";

export function databaseUrl(baseUrl: string, database: string): string {
  const url = new URL(baseUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

let pgTemplate: Promise<string> | undefined;

/** The migrated PostgreSQL template's name, made if no test process made it yet. */
export function postgresTemplate(baseUrl: string): Promise<string> {
  pgTemplate ??= makePostgresTemplate(baseUrl).catch((err) => {
    pgTemplate = undefined;
    throw err;
  });
  return pgTemplate;
}

async function makePostgresTemplate(baseUrl: string): Promise<string> {
  const name = `${TEMPLATE_PREFIX}${sourceDigest()}`;
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  try {
    await admin.query("SELECT pg_advisory_lock($1)", [TEMPLATE_LOCK]);
    const found = await admin.query("SELECT 1 FROM pg_database WHERE datname = $1", [name]);
    if (found.rowCount === 0) {
      // Made under another name and renamed when whole: a process killed half-way leaves no template.
      const building = `${name}_${randomBytes(4).toString("hex")}`;
      await admin.query(`CREATE DATABASE ${building}`);
      const store = await openStore({
        databaseUrl: databaseUrl(baseUrl, building),
        dataDir: "",
        pgPoolSize: 2,
      });
      try {
        await store.migrate();
      } finally {
        await store.close();
      }
      await admin.query(`ALTER DATABASE ${building} RENAME TO ${name}`);
      await dropStaleTemplates(admin, name);
    }
    // When it was last taken up: what tells a template in use from a stale one.
    await admin.query(`COMMENT ON DATABASE ${name} IS '${Date.now()}'`);
    return name;
  } finally {
    await admin.query("SELECT pg_advisory_unlock($1)", [TEMPLATE_LOCK]).catch(() => undefined);
    await admin.end();
  }
}

/**
 * Templates of other sources last taken up over a day ago. A newer one may be another run's, under
 * way on this machine with other sources (another checkout, an edit since): it stays.
 */
async function dropStaleTemplates(admin: pg.Client, current: string): Promise<void> {
  const stale = await admin.query<{ datname: string }>(
    `SELECT datname FROM pg_database d
      WHERE datname LIKE $1 AND datname <> $2
        AND coalesce(nullif(shobj_description(d.oid, 'pg_database'), '')::bigint, 0) < $3`,
    [`${TEMPLATE_PREFIX}%`, current, Date.now() - STALE_AFTER_MS],
  );
  for (const { datname } of stale.rows)
    await admin.query(`DROP DATABASE IF EXISTS ${datname}`).catch(() => undefined);
}

/** A template of other sources older than this is no run's any more. */
const STALE_AFTER_MS = 24 * 3600_000;

/** A new database copied from the migrated template (or empty), and a dropper. */
export async function postgresCopy(
  baseUrl: string,
  empty: boolean,
): Promise<{ url: string; drop(): Promise<void> }> {
  const template = empty ? undefined : await postgresTemplate(baseUrl);
  const name = `${runDatabasePrefix()}${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  try {
    await admin
      .query(`CREATE DATABASE ${name}${template ? ` TEMPLATE ${template}` : ""}`)
      .catch(async (err) => {
        // The template went (dropped by hand, or by a run of other sources): made again, once.
        if ((err as { code?: string }).code !== "3D000" || !template) throw err;
        pgTemplate = undefined;
        await admin.query(`CREATE DATABASE ${name} TEMPLATE ${await postgresTemplate(baseUrl)}`);
      });
  } finally {
    await admin.end();
  }
  return {
    url: databaseUrl(baseUrl, name),
    /**
     * Closes the database to connections (the autovacuum's too) and leaves it to the test runner,
     * which drops the run's done databases together (global-setup.ts): a drop here would make the
     * test wait for a checkpoint.
     */
    async drop() {
      const c = new pg.Client({ connectionString: baseUrl });
      await c.connect();
      try {
        await c.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS false`);
      } finally {
        await c.end();
      }
    },
  };
}

/**
 * The names of this run's databases begin with the test runner's process id (the parent of every
 * test worker), so that the run's end drops what its tests left, and nothing of another run.
 */
export function runDatabasePrefix(runnerPid = process.ppid): string {
  return `t_${runnerPid}_`;
}

let sqliteTemplate: Promise<string> | undefined;

/** The migrated SQLite template's file, made if no test process made it yet. */
function sqliteTemplateFile(): Promise<string> {
  sqliteTemplate ??= (async () => {
    const dir = join(tmpdir(), "payintake-test-templates");
    const file = join(dir, `${TEMPLATE_PREFIX}${sourceDigest()}.db`);
    if (existsSync(file)) {
      // Taken up now: what tells a template in use from a stale one (dropStaleFiles).
      utimesSync(file, new Date(), new Date());
      return file;
    }
    dropStaleFiles(dir);
    const building = join(dir, `building-${randomBytes(4).toString("hex")}`);
    mkdirSync(building, { recursive: true });
    const store = await openStore({ databaseUrl: undefined, dataDir: building, pgPoolSize: 1 });
    try {
      await store.migrate();
    } finally {
      // Closed: the journal is written back into the file, which alone is then the whole store.
      await store.close();
    }
    if (existsSync(join(building, "payintake.db-wal")))
      throw new Error("the SQLite template kept a write-ahead log after closing: it is not whole");
    renameSync(join(building, "payintake.db"), file);
    rmSync(building, { recursive: true, force: true });
    return file;
  })().catch((err) => {
    sqliteTemplate = undefined;
    throw err;
  });
  return sqliteTemplate;
}

/** Puts a migrated store's file into a new data directory. */
export async function sqliteCopy(dataDir: string): Promise<void> {
  copyFileSync(await sqliteTemplateFile(), join(dataDir, "payintake.db"));
}

/** Template files (and half-built folders) of other sources, last taken up over a day ago. */
function dropStaleFiles(dir: string): void {
  if (!existsSync(dir)) return;
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (Date.now() - statSync(path).mtimeMs > STALE_AFTER_MS) rmSync(path, { recursive: true, force: true });
  }
}
