import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Child, childEnv, startChild } from "../shared/children.js";
import { drive, type LoadResult, signedDepositRequest, waitForQuiet } from "../shared/load.js";
import {
  createSchema,
  type PayintakeInstance,
  provision,
  type StoreKind,
  startPayintake,
} from "../shared/payintake.js";
import { referenceScript } from "./reference-scripts.js";

/**
 * What bench/deposits/engines.ts and bench/deposits/ab.ts share: the store floor and signed deposits measured under
 * one variant or another (a setting, another tree), and the medians of interleaved rounds.
 */
export const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3));
export const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const WARMUP_SECONDS = 2;
export const CONNECTIONS = 50;
export const STORES = (process.env.BENCH_STORES ?? "sqlite,postgres")
  .split(",")
  .map((s) => s.trim())
  .filter((s): s is StoreKind => s === "sqlite" || s === "postgres");

export type Subject = "floor" | "deposits";

/** Where and how one measured server runs: its tree, and what its environment adds. */
export interface Variant {
  cwd: string;
  floorEnv: Record<string, string>;
  serverEnv: Record<string, string>;
}

export async function measure(
  url: string,
  creds: { apiKey: string; secret: string },
  pid: number,
  kind: StoreKind,
  log: (line: string) => void,
): Promise<LoadResult> {
  if (!(await waitForQuiet(15))) log("the machine stayed busy for 15 s; measuring anyway");
  return drive({
    url,
    request: signedDepositRequest(creds),
    connections: CONNECTIONS,
    seconds: SECONDS,
    warmupSeconds: WARMUP_SECONDS,
    serverPid: pid,
    measureDb: kind === "postgres",
  });
}

/** The store floor (bench/deposits/store-floor.ts) of the variant's tree, on a fresh store. */
export async function measureFloor(kind: StoreKind, v: Variant, log: (line: string) => void) {
  const dataDir = mkdtempSync(join(tmpdir(), "payintake-bench-floor-"));
  const schema = kind === "postgres" ? await createSchema() : undefined;
  let child: Child | undefined;
  try {
    child = await startChild(
      `floor (${kind})`,
      ["--import", "tsx", referenceScript(v.cwd, "store-floor")],
      childEnv({ ...(schema ? { DATABASE_URL: schema.url } : { FLOOR_DATA_DIR: dataDir }), ...v.floorEnv }),
      { cwd: v.cwd },
    );
    return await measure(child.url, { apiKey: "floor", secret: "floor" }, child.pid, kind, log);
  } finally {
    await child?.stop();
    await schema?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Signed deposits through the variant's built server, on a fresh store. */
export async function measureDeposits(kind: StoreKind, v: Variant, log: (line: string) => void) {
  let server: PayintakeInstance | undefined;
  try {
    server = await startPayintake(kind, { cwd: v.cwd, env: v.serverEnv });
    const creds = await provision(server);
    return await measure(server.child.url, creds, server.child.pid, kind, log);
  } finally {
    await server?.cleanup();
  }
}

export function describeLoad(r: LoadResult): string {
  return `${Math.round(r.okPerSec)}/s, p99 ${r.p99.toFixed(1)} ms, server ${r.cpu.server.toFixed(2)} cores`;
}

/** Server CPU per answered deposit, in µs (PostgreSQL's own CPU added when measured). */
export function cpuPerDeposit(r: LoadResult): number {
  return ((r.cpu.server + (r.cpu.db ?? 0)) / r.okPerSec) * 1e6;
}

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? Number.NaN : (s[Math.floor((s.length - 1) / 2)] ?? Number.NaN);
}

export interface Measured {
  kind: StoreKind;
  subject: Subject;
  /** Which variant, by its name in the table. */
  variant: string;
  round: number;
  result?: LoadResult;
  failure?: string;
}

/**
 * Every round measures each store's floor and deposits under every variant, the variants' order
 * reversed in every other round so a machine that drifts favours none.
 */
export async function interleave(
  variants: Record<string, Variant>,
  log: (line: string) => void,
): Promise<Measured[]> {
  const runs: Measured[] = [];
  const names = Object.keys(variants);
  for (let round = 1; round <= ROUNDS; round++) {
    const order = round % 2 === 1 ? names : [...names].reverse();
    for (const kind of STORES) {
      for (const subject of ["floor", "deposits"] as const) {
        for (const name of order) {
          const run: Measured = { kind, subject, variant: name, round };
          runs.push(run);
          const v = variants[name] as Variant;
          try {
            run.result = await (subject === "floor"
              ? measureFloor(kind, v, log)
              : measureDeposits(kind, v, log));
            log(`round ${round} ${kind} ${subject} ${name}: ${describeLoad(run.result)}`);
          } catch (err) {
            run.failure = (err as Error).message.split("\n", 1)[0];
            log(`round ${round} ${kind} ${subject} ${name} failed: ${run.failure}`);
          }
        }
      }
    }
  }
  return runs;
}

/** The medians of the rounds, one line per store, subject and variant. */
export function mediansTable(
  runs: Measured[],
  variants: string[],
  label: (kind: StoreKind, v: string) => string,
) {
  const lines = [
    "| Store | Subject | Variant | deposits/s | p99 ms | CPU µs per deposit | failed rounds |",
    "|---|---|---|---:|---:|---:|---:|",
  ];
  for (const kind of STORES) {
    for (const subject of ["floor", "deposits"] as const) {
      for (const v of variants) {
        const mine = runs.filter((r) => r.kind === kind && r.subject === subject && r.variant === v);
        const ok = mine.flatMap((r) => (r.result ? [r.result] : []));
        lines.push(
          `| ${kind === "sqlite" ? "SQLite" : "PostgreSQL"} | ${subject === "floor" ? "store floor" : "signed deposits"} | ` +
            `${label(kind, v)} | ${Math.round(median(ok.map((r) => r.okPerSec)))} | ` +
            `${median(ok.map((r) => r.p99)).toFixed(1)} | ${Math.round(median(ok.map(cpuPerDeposit)))} | ${mine.length - ok.length} |`,
        );
      }
    }
  }
  return lines.join("\n");
}
