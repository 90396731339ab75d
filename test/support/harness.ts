import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { request } from "undici";
import { parseConfig } from "../../src/config/config.js";
import { type RunningServer, startServer } from "../../src/main/server.js";
import { HASH_COST, setHashCost } from "../../src/operators/passwords.js";
import { postgresCopy, sqliteCopy } from "./migrated-template.js";
import { PG_BASE_URL, type StoreKind } from "./stores.js";

/**
 * Starts the real server on a fresh database: a new SQLite file in a temp directory, or a database
 * of its own on the PostgreSQL server, each a copy of a migrated template (migrated-template.ts).
 * Every suite runs against both stores unless PAYINTAKE_TEST_STORES narrows it (e.g. "sqlite" on a
 * machine without PostgreSQL).
 */
export { PG_BASE_URL, STORES, type StoreKind } from "./stores.js";

/** A clock the tests can move; the server reads time only through it. */
export class TestClock {
  offsetMs = 0;
  /** While set, time stands still at this instant (plus the offset). */
  frozenAtMs: number | undefined;
  now = () => (this.frozenAtMs ?? Date.now()) + this.offsetMs;
  advance(ms: number) {
    this.offsetMs += ms;
  }
}

export interface TestServer {
  kind: StoreKind;
  url: string;
  adminToken: string;
  clock: TestClock;
  env: Record<string, string>;
  /** Every log line the server wrote (at LOG_LEVEL, default info). */
  logs: string[];
  admin(method: string, path: string, body?: unknown): Promise<{ status: number; json: any }>;
  close(): Promise<void>;
}

/** A fresh PostgreSQL schema; returns the DATABASE_URL that points at it and a dropper. */
export async function freshPostgresSchema(): Promise<{ url: string; drop(): Promise<void> }> {
  const schema = `t_${randomBytes(6).toString("hex")}`;
  const client = new pg.Client({ connectionString: PG_BASE_URL });
  await client.connect();
  await client.query(`CREATE SCHEMA ${schema}`);
  await client.end();
  const url = `${PG_BASE_URL}?options=${encodeURIComponent(`-c search_path=${schema}`)}`;
  return {
    url,
    async drop() {
      const c = new pg.Client({ connectionString: PG_BASE_URL });
      await c.connect();
      await c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await c.end();
    },
  };
}

/**
 * A data directory and, on PostgreSQL, a database of its own, with every migration applied (copied
 * from a migrated template: migrated-template.ts); `empty`: a store with no migration applied.
 */
export async function storeEnv(
  kind: StoreKind,
  opts: { empty?: boolean } = {},
): Promise<{ env: Record<string, string>; cleanup(): Promise<void> }> {
  const dataDir = mkdtempSync(join(tmpdir(), "payintake-test-"));
  const base = {
    PAYINTAKE_DATA_DIR: dataDir,
    PAYINTAKE_MASTER_KEY: randomBytes(32).toString("hex"),
    PAYINTAKE_ADMIN_TOKEN: randomBytes(24).toString("hex"),
  };
  if (kind === "sqlite") {
    if (!opts.empty) await sqliteCopy(dataDir);
    return { env: base, cleanup: async () => rmSync(dataDir, { recursive: true, force: true }) };
  }
  const database = await postgresCopy(PG_BASE_URL, opts.empty === true);
  return {
    env: { ...base, DATABASE_URL: database.url, PAYINTAKE_PG_POOL_SIZE: "10" },
    async cleanup() {
      await database.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface TestServerOptions {
  /** Run on another test server's database, as a second instance (its owner drops the database). */
  shareStoreOf?: TestServer;
  /** Start with this machine's clock this far off (before any correction). */
  clockOffsetMs?: number;
  /** Hash operators' passwords at the service's scrypt cost (a test of sign-in under load). */
  fullPasswordCost?: boolean;
  /** Correct the clock to the database's, as production does (off in tests unless asked). */
  clockFromDatabase?: boolean;
}

/** What a second instance takes from the first: its database, keys and token (not its data dir). */
function sharedStore(env: Record<string, string>): { env: Record<string, string>; cleanup(): Promise<void> } {
  const dataDir = mkdtempSync(join(tmpdir(), "payintake-test-"));
  const out: Record<string, string> = { PAYINTAKE_DATA_DIR: dataDir };
  for (const k of [
    "DATABASE_URL",
    "PAYINTAKE_PG_POOL_SIZE",
    "PAYINTAKE_MASTER_KEY",
    "PAYINTAKE_ADMIN_TOKEN",
  ]) {
    if (env[k] !== undefined) out[k] = env[k] as string;
  }
  return { env: out, cleanup: async () => rmSync(dataDir, { recursive: true, force: true }) };
}

const TEST_HASH_COST = 1024;

export async function startTestServer(
  kind: StoreKind,
  extraEnv: Record<string, string> = {},
  opts: TestServerOptions = {},
): Promise<TestServer> {
  const store = opts.shareStoreOf ? sharedStore(opts.shareStoreOf.env) : await storeEnv(kind);
  const env: Record<string, string> = {
    PORT: "0",
    HOST: "127.0.0.1",
    LOG_LEVEL: "info",
    PAYINTAKE_ALLOW_PRIVATE_CALLBACKS: "true",
    // The console sends an operator's decision at once, as most tests expect; the test of taking a
    // decision back (test/browser/console-undo.test.ts) sets its own.
    PAYINTAKE_CONSOLE_UNDO_SECONDS: "0",
    ...store.env,
    ...extraEnv,
  };
  // Operators' passwords are hashed with scrypt's N of 2^10 rather than 2^15 (a 32nd of the work):
  // the suites sign in thousands of times, and at the service's cost hashing took most of the
  // console's tests. A test of the cost itself asks for the service's.
  setHashCost(opts.fullPasswordCost ? HASH_COST : TEST_HASH_COST);
  const clock = new TestClock();
  clock.advance(opts.clockOffsetMs ?? 0);
  const logs: string[] = [];
  let server: RunningServer;
  try {
    server = await startServer(parseConfig(env), {
      now: clock.now,
      clockFromDatabase: opts.clockFromDatabase ?? false,
      logDestination: { write: (line: string) => void logs.push(line) },
    });
  } catch (err) {
    await store.cleanup();
    throw err;
  }
  const adminToken = env.PAYINTAKE_ADMIN_TOKEN as string;
  return {
    kind,
    url: server.url,
    adminToken,
    clock,
    env,
    logs,
    async admin(method, path, body) {
      const res = await request(`${server.url}${path}`, {
        method: method as "GET",
        headers: {
          authorization: `Bearer ${adminToken}`,
          ...(body === undefined ? {} : { "content-type": "application/json" }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: res.statusCode, json: await res.body.json() };
    },
    async close() {
      await server.close();
      await store.cleanup();
    },
  };
}
