import { type ChildProcess, fork } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { type Child, childEnv, startChild } from "../shared/children.js";
import type { Credentials } from "../shared/load.js";
import { createSchema, type PayintakeInstance, provision } from "../shared/payintake.js";

/**
 * The deployment the callbacks-under-load cases run on: one PostgreSQL schema, one `worker`
 * instance that sends every callback, `api` instances that take the deposits and the decisions,
 * and a deposit flood from a process of its own, so that its event loop is not the receiver's.
 */
export interface LoadScene {
  apis: PayintakeInstance[];
  /** kill -9 of the worker instance; the moment, on the bench's clock. */
  killWorker(): number;
  /** A new worker instance on the same store; the moment it listens, on the bench's clock. */
  restartWorker(): Promise<number>;
  /** 50 clients (spread over the api instances) depositing flat out for `seconds`. */
  flood(seconds: number): Flood;
  /** Every callback's attempts as the store recorded them. */
  attempts(): Promise<AttemptRow[]>;
  /** The transactions whose callbacks are leased now: right after a kill, the dead workers' rows. */
  leased(): Promise<number[]>;
  cleanup(): Promise<void>;
}

export interface Flood {
  done: Promise<FloodResult>;
}

/** What the flood measured, summed over its api instances. */
export interface FloodResult {
  okPerSecond: number;
  non2xx: number;
  errors: number;
  p50: number;
  p99: number;
  /** The whole machine's busy share over the flood, % of all cores. */
  machineBusyPct: number;
  /** Of all cores' time over the flood, the % the hypervisor gave to others (steal). */
  stealPct: number;
  /** Cores used by each api instance, by PostgreSQL and by the flood itself. */
  apiCores: number[];
  dbCores: number;
  /** Cores used by the worker instance (sending the callbacks). */
  workerCores: number;
  floodCores: number;
}

/** What the flood process is told to do (bench/callbacks/flood.ts). */
export interface FloodOrder {
  urls: string[];
  pids: number[];
  workerPid: number;
  creds: Credentials;
  connections: number;
  seconds: number;
}

/** One recorded attempt of a callback (times in ms since the epoch, the servers' clock). */
export interface AttemptRow {
  transactionId: number;
  status: string;
  attempt: number | null;
  startedAt: number | null;
  outcome: string | null;
  error: string | null;
}

export const FLOOD_CONNECTIONS = 50;

const FLOOD_SCRIPT = fileURLToPath(new URL("./flood.ts", import.meta.url));

export async function startLoadScene(opts: { cwd: string; apiInstances: number }): Promise<LoadScene> {
  const schema = await createSchema();
  const dirs: string[] = [];
  const children: Child[] = [];
  const floods = new Set<ChildProcess>();
  const adminToken = randomBytes(24).toString("hex");
  const env: Record<string, string> = {
    PORT: "0",
    HOST: "127.0.0.1",
    LOG_LEVEL: "warn",
    DATABASE_URL: schema.url,
    PAYINTAKE_ALLOW_PRIVATE_CALLBACKS: "true",
    PAYINTAKE_MASTER_KEY: randomBytes(32).toString("hex"),
    PAYINTAKE_ADMIN_TOKEN: adminToken,
    PAYMENT_PAGE_URL: "https://pay.example.com",
    ...(process.env.BENCH_PG_POOL_SIZE ? { PAYINTAKE_PG_POOL_SIZE: process.env.BENCH_PG_POOL_SIZE } : {}),
  };
  const start = async (name: string, role: "api" | "worker") => {
    const dataDir = mkdtempSync(join(tmpdir(), `payintake-bench-${role}-`));
    dirs.push(dataDir);
    const child = await startChild(
      name,
      ["dist/main/cli.js", "serve", "--role", role],
      childEnv({ ...env, PAYINTAKE_DATA_DIR: dataDir }),
      { cwd: opts.cwd },
    );
    children.push(child);
    return child;
  };
  const cleanup = async () => {
    for (const f of floods) f.kill("SIGKILL");
    for (const c of [...children].reverse()) await c.stop().catch(() => {});
    await schema.drop().catch(() => {});
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  };
  try {
    // The worker first: it migrates the schema before the api instances start beside it.
    let worker = await start("worker", "worker");
    const apis: PayintakeInstance[] = [];
    for (let i = 0; i < opts.apiInstances; i++) {
      const child = await start(`api-${i}`, "api");
      apis.push({ child, adminToken, env, cleanup: () => child.stop() });
    }
    const creds = await provision(apis[0] as PayintakeInstance);
    let restarts = 0;
    return {
      apis,
      killWorker() {
        process.kill(worker.pid, "SIGKILL");
        return performance.now();
      },
      async restartWorker() {
        worker = await start(`worker (restart ${++restarts})`, "worker");
        return performance.now();
      },
      flood(seconds) {
        const proc = fork(FLOOD_SCRIPT, [], { execArgv: ["--import", "tsx"], env: childEnv({}) });
        floods.add(proc);
        const order: FloodOrder = {
          urls: apis.map((a) => a.child.url),
          pids: apis.map((a) => a.child.pid),
          workerPid: worker.pid,
          creds,
          connections: FLOOD_CONNECTIONS,
          seconds,
        };
        proc.send(order);
        const done = new Promise<FloodResult>((resolve, reject) => {
          proc.once("message", (m) => resolve(m as FloodResult));
          proc.once("exit", (code, signal) =>
            reject(new Error(`the flood ended (code ${code}, signal ${signal})`)),
          );
        }).finally(() => floods.delete(proc));
        return { done };
      },
      attempts: () => readAttempts(schema.url),
      leased: () => readLeases(schema.url),
      cleanup,
    };
  } catch (err) {
    await cleanup();
    throw err;
  }
}

async function query(url: string, text: string, values: unknown[] = []): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    return await client.query(text, values);
  } finally {
    await client.end();
  }
}

async function readLeases(url: string): Promise<number[]> {
  const result = await query(url, "SELECT transaction_id FROM callbacks WHERE lease_until > $1", [
    Date.now(),
  ]);
  return result.rows.map((r) => Number(r.transaction_id));
}

async function readAttempts(url: string): Promise<AttemptRow[]> {
  const result = await query(
    url,
    `SELECT c.transaction_id, c.status, a.attempt, a.started_at, a.outcome, a.error
       FROM callbacks c LEFT JOIN callback_attempts a ON a.callback_id = c.id
       ORDER BY c.transaction_id, a.attempt`,
  );
  const n = (v: unknown) => (v === null ? null : Number(v));
  return result.rows.map((r) => ({
    transactionId: Number(r.transaction_id),
    status: String(r.status),
    attempt: n(r.attempt),
    startedAt: n(r.started_at),
    outcome: r.outcome as string | null,
    error: r.error as string | null,
  }));
}
