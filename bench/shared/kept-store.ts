import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEFAULT_PG_POOL_SIZE } from "../../src/config/config.js";
import { openStore, type Store } from "../../src/store/engine/open.js";
import { type Child, childEnv, startChild } from "./children.js";
import { createSchema, type StoreKind } from "./payintake.js";

/**
 * A store kept for a whole run, and payintake started on it again and again: the volume benchmark
 * stops the server while it seeds the store (the embedded store's file is the server's alone) and
 * starts it on the grown store to measure; the reconciliation and index-cost benchmarks use it for
 * a store whose keys they know. Same configuration as bench/shared/payintake.ts, with the data
 * directory, keys and token kept from one start to the next.
 */
export interface KeptStore {
  kind: StoreKind;
  dataDir: string;
  /** PostgreSQL: the fresh schema's URL (search_path pinned to it). */
  databaseUrl: string | undefined;
  masterKey: Buffer;
  adminToken: string;
  env: Record<string, string>;
  /** Drops the schema and removes the data directory; safe to call twice. */
  remove(): Promise<void>;
}

export async function createKeptStore(kind: StoreKind): Promise<KeptStore> {
  const dataDir = mkdtempSync(join(tmpdir(), `payintake-volume-${kind}-`));
  const schema = kind === "postgres" ? await createSchema() : undefined;
  const masterKey = randomBytes(32);
  const adminToken = randomBytes(24).toString("hex");
  let removed = false;
  return {
    kind,
    dataDir,
    databaseUrl: schema?.url,
    masterKey,
    adminToken,
    env: {
      PORT: "0",
      HOST: "127.0.0.1",
      LOG_LEVEL: "warn",
      PAYINTAKE_ALLOW_PRIVATE_CALLBACKS: "true",
      PAYINTAKE_DATA_DIR: dataDir,
      PAYINTAKE_MASTER_KEY: masterKey.toString("hex"),
      PAYINTAKE_ADMIN_TOKEN: adminToken,
      PAYMENT_PAGE_URL: "https://pay.example.com",
      ...(schema ? { DATABASE_URL: schema.url } : {}),
    },
    async remove() {
      if (removed) return;
      removed = true;
      try {
        await schema?.drop();
      } finally {
        rmSync(dataDir, { recursive: true, force: true });
      }
    },
  };
}

/**
 * The kept store opened in this process, as the service opens it, while no server runs on it (the
 * embedded store's file is one process's at a time): to seed it, or to call the store directly.
 */
export function openKeptStore(vs: KeptStore, opts: { seeding: boolean }): Promise<Store> {
  return openStore({
    databaseUrl: vs.databaseUrl,
    dataDir: vs.dataDir,
    pgPoolSize: opts.seeding ? 2 : DEFAULT_PG_POOL_SIZE,
    // Seeding's VACUUM ANALYZE of millions of rows takes longer than any request may.
    ...(opts.seeding ? { pgStatementTimeoutMs: 0 } : {}),
    engine: { sqliteThread: true, pgBatches: true },
  });
}

export interface RunningServer {
  child: Child;
  /** From spawning the process to its "listening" line. */
  startMs: number;
}

/** A large store can take a while to open (the server looks at its tables at start). */
const START_TIMEOUT_MS = 10 * 60_000;

export async function startServer(store: KeptStore, cwd: string): Promise<RunningServer> {
  const started = performance.now();
  const child = await startChild(
    `payintake (${store.kind}, volume)`,
    ["dist/main/cli.js", "serve"],
    childEnv(store.env),
    { cwd, timeoutMs: START_TIMEOUT_MS },
  );
  return { child, startMs: performance.now() - started };
}

/** The most memory the process has had resident since it started (VmHWM), in bytes; NaN without procfs. */
export function peakRssBytes(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const kb = /^VmHWM:\s+(\d+)\s+kB$/m.exec(status)?.[1];
    return kb === undefined ? Number.NaN : Number(kb) * 1024;
  } catch {
    return Number.NaN;
  }
}

/** What the server wrote at error level (pino's level 50 and above), a few lines of it. */
export function serverErrors(child: Child): string[] {
  return child
    .output()
    .split("\n")
    .filter((line) => /"level":(50|60)/.test(line))
    .slice(-5)
    .map((line) => line.slice(0, 500));
}
