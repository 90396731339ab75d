import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { turkishIbanFor } from "../../src/domain/iban.js";
import { type Child, childEnv, startChild } from "./children.js";
import type { Credentials } from "./load.js";

export type StoreKind = "sqlite" | "postgres";

export const PG_BASE_URL =
  process.env.BENCH_DATABASE_URL ??
  process.env.PAYINTAKE_TEST_DATABASE_URL ??
  "postgres://postgres@127.0.0.1:5432/test";

export interface PayintakeInstance {
  child: Child;
  adminToken: string;
  /** The server's environment, for a second instance on the same store (startPeer). */
  env: Record<string, string>;
  /** Stops the server, drops the schema, removes the data directory; safe to call twice. */
  cleanup(): Promise<void>;
}

/** A fresh schema in the PostgreSQL database; the returned URL pins search_path to it. */
export async function createSchema(): Promise<{ url: string; drop(): Promise<void> }> {
  const schema = `bench_${randomBytes(6).toString("hex")}`;
  const client = new pg.Client({ connectionString: PG_BASE_URL, connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    await client.query(`CREATE SCHEMA ${schema}`);
  } finally {
    await client.end();
  }
  const sep = PG_BASE_URL.includes("?") ? "&" : "?";
  return {
    url: `${PG_BASE_URL}${sep}options=${encodeURIComponent(`-c search_path=${schema}`)}`,
    async drop() {
      const c = new pg.Client({ connectionString: PG_BASE_URL, connectionTimeoutMillis: 5_000 });
      await c.connect();
      try {
        await c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      } finally {
        await c.end();
      }
    },
  };
}

/**
 * Starts `node dist/main/cli.js serve` on a fresh store: a new data directory, and for PostgreSQL a
 * new schema. `nodeArgs` go before the script (e.g. --cpu-prof); `node` is the Node.js binary to run
 * it under (default: the bench's own), with `cwd` a tree built and installed for that runtime.
 */
export async function startPayintake(
  kind: StoreKind,
  opts: { cwd: string; nodeArgs?: string[]; node?: string; env?: Record<string, string> },
): Promise<PayintakeInstance> {
  const dataDir = mkdtempSync(join(tmpdir(), `payintake-bench-${kind}-`));
  const adminToken = randomBytes(24).toString("hex");
  let schema: { url: string; drop(): Promise<void> } | undefined;
  let child: Child | undefined;
  let serverEnv: Record<string, string> = {};
  let done = false;
  const cleanup = async () => {
    if (done) return;
    done = true;
    const problems: string[] = [];
    if (child) await child.stop().catch((err: Error) => problems.push(`stop: ${err.message}`));
    if (schema) await schema.drop().catch((err: Error) => problems.push(`drop schema: ${err.message}`));
    rmSync(dataDir, { recursive: true, force: true });
    if (problems.length > 0) throw new Error(`${kind} cleanup: ${problems.join("; ")}`);
  };
  try {
    const env: Record<string, string> = {
      PORT: "0",
      HOST: "127.0.0.1",
      LOG_LEVEL: "warn",
      PAYINTAKE_ALLOW_PRIVATE_CALLBACKS: "true",
      PAYINTAKE_DATA_DIR: dataDir,
      PAYINTAKE_MASTER_KEY: randomBytes(32).toString("hex"),
      PAYINTAKE_ADMIN_TOKEN: adminToken,
      // Set as a deployment would: without it the server warns at start, and the bench reports any
      // warning as something to look at.
      PAYMENT_PAGE_URL: "https://pay.example.com",
      // BENCH_PG_POOL_SIZE tries other pool sizes (the server's own variables are not passed through).
      ...(process.env.BENCH_PG_POOL_SIZE ? { PAYINTAKE_PG_POOL_SIZE: process.env.BENCH_PG_POOL_SIZE } : {}),
      ...opts.env,
    };
    if (kind === "postgres") {
      schema = await createSchema();
      env.DATABASE_URL = schema.url;
    }
    child = await startChild(
      `payintake (${kind})`,
      [...(opts.nodeArgs ?? []), "dist/main/cli.js", "serve"],
      childEnv(env),
      { cwd: opts.cwd, node: opts.node },
    );
    serverEnv = env;
  } catch (err) {
    await cleanup().catch(() => {});
    throw err;
  }
  return { child, adminToken, env: serverEnv, cleanup };
}

/**
 * A second instance on the first one's store (PostgreSQL): same database, keys and token, its own
 * data directory. Its cleanup stops it; the first instance's drops the store.
 */
export async function startPeer(first: PayintakeInstance, cwd: string): Promise<PayintakeInstance> {
  const dataDir = mkdtempSync(join(tmpdir(), "payintake-bench-peer-"));
  const env = { ...first.env, PAYINTAKE_DATA_DIR: dataDir };
  const child = await startChild("payintake (peer)", ["dist/main/cli.js", "serve"], childEnv(env), { cwd });
  let done = false;
  return {
    child,
    adminToken: first.adminToken,
    env,
    async cleanup() {
      if (done) return;
      done = true;
      await child.stop().catch(() => {});
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function admin(
  server: PayintakeInstance,
  path: string,
  body: unknown,
): Promise<Record<string, unknown>> {
  const res = await fetch(`${server.child.url}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${server.adminToken}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status !== 201) throw new Error(`POST ${path} answered ${res.status}: ${text}`);
  return JSON.parse(text) as Record<string, unknown>;
}

/** One firm that no rate limit will touch, and a few payment accounts for the deposits to rotate over. */
export async function provision(server: PayintakeInstance, accounts = 3): Promise<Credentials> {
  const firm = await admin(server, "/admin/v1/firms", {
    name: "Bench Firm",
    webhook_url: "http://127.0.0.1:9/cb",
    rate_limit_per_second: 1_000_000,
    max_pending_count: null,
    max_pending_amount: null,
  });
  for (let i = 0; i < accounts; i++) {
    await admin(server, "/admin/v1/accounts", {
      bank_name: ["Ziraat Bankası", "Akbank", "Garanti BBVA"][i % 3],
      holder_name: "Ödeme Hizmetleri A.Ş.",
      iban: turkishIbanFor(`00061005197864578413${String(20 + i).padStart(2, "0")}`),
    });
  }
  const apiKey = firm.api_key;
  const secret = firm.secret_key;
  if (typeof apiKey !== "string" || typeof secret !== "string")
    throw new Error(`firm create answered without credentials: ${JSON.stringify(firm)}`);
  return { apiKey, secret };
}
