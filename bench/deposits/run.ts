import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { availableParallelism, cpus, release, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import pg from "pg";
import { benchCallbacks, type CallbackBenchResult } from "../callbacks/delivery.js";
import {
  benchKilledWorker,
  benchSteadyReceiver,
  type KillResult,
  type SteadyResult,
} from "../callbacks/isolation.js";
import { benchMixed, type MixedResult, mixedSection } from "../mixed/workload.js";
import { benchRouting, type RoutingBenchResult } from "../routing/hanging-channel.js";
import { type Child, childEnv, startChild } from "../shared/children.js";
import { BENCHMARKS_DOC, writeDocSections } from "../shared/doc-sections.js";
import {
  type Credentials,
  drive,
  type LoadResult,
  signedDepositRequest,
  waitForQuiet,
} from "../shared/load.js";
import {
  createSchema,
  type PayintakeInstance,
  PG_BASE_URL,
  provision,
  type StoreKind,
  startPayintake,
  startPeer,
} from "../shared/payintake.js";
import { codeVersion, ROOT } from "../shared/tree.js";
import { formatSummary, profilesIn, summariseProfile } from "./profile.js";
import { referenceScript } from "./reference-scripts.js";
import {
  cpuTable,
  noiseWarning,
  resultsTable,
  type Scenario,
  statusDetails,
  summarise,
  summaryChecks,
  summaryTable,
  TARGETS,
} from "./report.js";

/**
 * `npm run bench`: signed direct deposits against payintake (embedded SQLite, then PostgreSQL),
 * next to a bare Fastify endpoint driven the same way. Every server is a child process; autocannon
 * runs here. Prints a markdown table and rewrites its sections of docs/BENCHMARKS.md.
 */
const CONNECTIONS = 50;
const SECONDS = positive(process.env.BENCH_SECONDS, 10);
const WARMUP_SECONDS = positive(process.env.BENCH_WARMUP_SECONDS, 2);
/**
 * Rounds of bare, SQLite and PostgreSQL, one after the other. This machine's speed drifts by a third
 * within minutes (the bare endpoint measured 8,000 to 18,500 requests/s in one hour), so one bare
 * measurement a minute before a store's says more about the drift than about the store: each ratio
 * is taken within its round, and the targets are held to the median of those ratios and to the
 * worst round's p99.
 */
const ROUNDS = Math.max(1, Math.round(positive(process.env.BENCH_ROUNDS, 3)));
const QUIET_WAIT_SECONDS = positive(process.env.BENCH_QUIET_WAIT_SECONDS, 15);
const CALLBACKS = !["0", "false", "no"].includes(process.env.BENCH_CALLBACKS ?? "");
const CALLBACK_TARGETS = { p99Ms: 200, perSecond: 1_000 };
const PROFILE = ["1", "true", "yes"].includes(process.env.BENCH_CPU_PROF ?? "");
/**
 * One receiver at 50 callbacks/s for 60 s (BENCH_CALLBACK_SECONDS), healthy and with 2 % of first
 * attempts hanging; the 2 % target is on the callbacks that did not hang. A killed worker's
 * callbacks must arrive within 15 s (PostgreSQL).
 */
const STEADY = { rate: 50, seconds: positive(process.env.BENCH_CALLBACK_SECONDS, 60), hangShare: 0.02 };
const ISOLATION_TARGETS = { hangingP99Ms: 2_000, killMs: 15_000 };
/**
 * BENCH_ONLY=mixed runs the sustained mixed workload alone (it takes minutes); BENCH_ONLY=callbacks
 * the callbacks section alone.
 */
const ONLY = process.env.BENCH_ONLY;
const MIXED_SECONDS = positive(process.env.BENCH_MIXED_SECONDS, 120);
const STORES = (process.env.BENCH_STORES ?? "sqlite,postgres")
  .split(",")
  .map((s) => s.trim())
  .filter((s): s is StoreKind => s === "sqlite" || s === "postgres");

/**
 * A Node.js runtime to run the servers under. The load generator (this process) is the same for all
 * of them; a runtime's tree (`cwd`) must be installed and built with that runtime (better-sqlite3 is
 * a native addon built for one Node.js ABI).
 */
interface Runtime {
  name: string;
  node: string;
  cwd: string;
  version: string;
  /** Put before the labels of its servers ("" for the bench's own runtime). */
  prefix: string;
}

const OWN: Runtime = { name: "own", node: process.execPath, cwd: ROOT, version: process.version, prefix: "" };

/**
 * BENCH_RUNTIMES="20=/usr/bin/node,24=/path/to/node@/path/to/tree": compare runtimes in one run,
 * alternating in every round (never at the same time). Each entry is NAME=NODE_BINARY, optionally
 * @TREE: a checkout of the same commit installed (`npm install`) and built (`npm run build`) with
 * that binary; without it, this tree.
 */
function parseRuntimes(spec: string | undefined): Runtime[] {
  if (!spec) return [];
  return spec
    .split(",")
    .map((entry) => entry.trim())
    .filter((entry) => entry !== "")
    .map((entry) => {
      const m = /^([^=]+)=([^@]+)(?:@(.+))?$/.exec(entry);
      if (!m?.[1] || !m[2]) throw new Error(`BENCH_RUNTIMES: expected NAME=NODE[@TREE], got "${entry}"`);
      const node = resolve(m[2]);
      const cwd = m[3] ? resolve(m[3]) : ROOT;
      const version = execFileSync(node, ["--version"], { encoding: "utf8" }).trim();
      if (!existsSync(join(cwd, "dist", "main", "cli.js")))
        throw new Error(
          `BENCH_RUNTIMES: ${cwd} has no dist/main/cli.js (npm install && npm run build there)`,
        );
      const driver = execFileSync(
        node,
        [
          "--input-type=module",
          "-e",
          'const d = await import("./dist/store/engine/sqlite-driver.js"); new (d.sqliteDatabase())(":memory:").close(); console.log(d.SQLITE_DRIVER, d.sqliteDriverVersion(), "ABI", process.versions.modules)',
        ],
        { cwd, encoding: "utf8" },
      ).trim();
      log(`runtime ${m[1]}: ${node} ${version} (${driver}) in ${cwd}`);
      return { name: m[1], node, cwd, version, prefix: `${m[1]}: ` };
    });
}

function positive(value: string | undefined, fallback: number): number {
  if (value === undefined || value === "") return fallback;
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0) throw new Error(`expected a non-negative number, got "${value}"`);
  return n;
}

const log = (line: string) => process.stdout.write(`[bench] ${line}\n`);

// Everything started is stopped again, also on Ctrl-C.
const cleanups: (() => Promise<void>)[] = [];
async function cleanupAll(): Promise<void> {
  while (cleanups.length > 0) {
    const fn = cleanups.pop();
    await fn?.().catch((err: Error) => log(`cleanup failed: ${err.message}`));
  }
}
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    log(`${signal}: cleaning up`);
    void cleanupAll().finally(() => process.exit(130));
  });
}

function describe(r: LoadResult): string {
  return (
    `${Math.round(r.reqPerSecMean)} req/s, ${r.ok200} × 200 (${Math.round(r.okPerSec)}/s), ` +
    `p50 ${r.p50.toFixed(2)} ms, p99 ${r.p99.toFixed(2)} ms, non-2xx ${r.non2xx}, errors ${r.errors}, ` +
    `cpu: generator ${r.cpu.generator.toFixed(2)}, server ${r.cpu.server.toFixed(2)}` +
    (r.cpu.db === null ? "" : `, postgres ${r.cpu.db.toFixed(2)}`)
  );
}

async function load(url: string, creds: Credentials, serverPid: number, measureDb: boolean) {
  if (QUIET_WAIT_SECONDS > 0 && !(await waitForQuiet(QUIET_WAIT_SECONDS)))
    log(`the machine stayed busy for ${QUIET_WAIT_SECONDS} s; measuring anyway`);
  return drive({
    url,
    request: signedDepositRequest(creds),
    connections: CONNECTIONS,
    seconds: SECONDS,
    warmupSeconds: WARMUP_SECONDS,
    serverPid,
    measureDb,
  });
}

async function runBare(round: number, rt: Runtime = OWN): Promise<Scenario> {
  const scenario: Scenario = { key: "bare", label: `${rt.prefix}bare Fastify (reference)`, round };
  let child: Child | undefined;
  try {
    child = await startChild(
      "bare",
      ["--import", "tsx", referenceScript(rt.cwd, "bare-server")],
      childEnv({}),
      {
        cwd: rt.cwd,
        node: rt.node,
      },
    );
    const stop = child.stop.bind(child);
    cleanups.push(stop);
    log(`${rt.prefix}bare endpoint at ${child.url}; ${WARMUP_SECONDS} s warmup, ${SECONDS} s measured`);
    // Same requests as the deposits (signed, unique ids), so the load generator does the same work.
    scenario.result = await load(child.url, { apiKey: "bare", secret: "bare" }, child.pid, false);
    log(`${rt.prefix}bare: ${describe(scenario.result)}`);
    await stop();
    cleanups.splice(cleanups.indexOf(stop), 1);
  } catch (err) {
    scenario.failure = (err as Error).message.split("\n", 1)[0];
    log(`bare failed: ${(err as Error).message}`);
  }
  return scenario;
}

/**
 * The store floor (bench/deposits/store-floor.ts) on a fresh store: payintake's store calls alone, driven by
 * the same requests, to show how much of the gap to bare is the store's and how much the rest of a
 * deposit's.
 */
async function runFloor(kind: StoreKind, round: number, rt: Runtime = OWN): Promise<Scenario> {
  const label = `${rt.prefix}store floor, ${kind === "sqlite" ? "SQLite" : "PostgreSQL"} (reference)`;
  const scenario: Scenario = { key: kind === "sqlite" ? "floor-sqlite" : "floor-postgres", label, round };
  const dataDir = mkdtempSync(join(tmpdir(), "payintake-bench-floor-"));
  let schema: Awaited<ReturnType<typeof createSchema>> | undefined;
  let child: Child | undefined;
  const cleanup = async () => {
    await child?.stop().catch((err: Error) => log(`floor ${kind}: stop failed: ${err.message}`));
    await schema?.drop().catch((err: Error) => log(`floor ${kind}: drop schema failed: ${err.message}`));
    rmSync(dataDir, { recursive: true, force: true });
  };
  cleanups.push(cleanup);
  try {
    if (kind === "postgres") schema = await createSchema();
    child = await startChild(
      `store floor (${kind})`,
      ["--import", "tsx", referenceScript(rt.cwd, "store-floor")],
      childEnv(schema ? { DATABASE_URL: schema.url } : { FLOOR_DATA_DIR: dataDir }),
      { cwd: rt.cwd, node: rt.node },
    );
    log(`${label} at ${child.url}; ${WARMUP_SECONDS} s warmup, ${SECONDS} s measured`);
    scenario.result = await load(
      child.url,
      { apiKey: "floor", secret: "floor" },
      child.pid,
      kind === "postgres",
    );
    log(`${rt.prefix}floor ${kind}: ${describe(scenario.result)}`);
  } catch (err) {
    scenario.failure = (err as Error).message.split("\n", 1)[0];
    log(`floor ${kind} failed: ${(err as Error).message}`);
  } finally {
    cleanups.splice(cleanups.indexOf(cleanup), 1);
    await cleanup();
  }
  return scenario;
}

async function runPayintake(
  kind: StoreKind,
  round: number,
  profileDir: string | undefined,
  rt: Runtime = OWN,
): Promise<Scenario> {
  const label = `${rt.prefix}${kind === "sqlite" ? "payintake, SQLite (embedded)" : "payintake, PostgreSQL"}`;
  const scenario: Scenario = { key: kind, label, round };
  let server: PayintakeInstance | undefined;
  const nodeArgs = profileDir ? ["--cpu-prof", "--cpu-prof-dir", join(profileDir, `${kind}-${round}`)] : [];
  try {
    server = await startPayintake(kind, { cwd: rt.cwd, nodeArgs, node: rt.node });
    cleanups.push(server.cleanup);
    const creds = await provision(server);
    log(`${label} at ${server.child.url}; ${WARMUP_SECONDS} s warmup, ${SECONDS} s measured`);
    scenario.result = await load(server.child.url, creds, server.child.pid, kind === "postgres");
    log(`${rt.prefix}${kind}: ${describe(scenario.result)}`);
    const output = server.child.output().trim();
    if (output.includes('"level":50') || output.includes('"level":40'))
      log(`${kind}: server logged warnings/errors:\n${output.slice(-2000)}`);
  } catch (err) {
    scenario.failure = (err as Error).message.split("\n", 1)[0];
    log(`${kind} failed: ${(err as Error).message}`);
  } finally {
    if (server) {
      cleanups.splice(cleanups.indexOf(server.cleanup), 1);
      await server.cleanup().catch((err: Error) => log(`${kind} cleanup failed: ${err.message}`));
    }
  }
  if (profileDir && existsSync(join(profileDir, `${kind}-${round}`))) {
    for (const file of profilesIn(join(profileDir, `${kind}-${round}`))) {
      process.stdout.write(
        `\n${formatSummary(`CPU profile, payintake ${kind}, round ${round}`, summariseProfile(file, ROOT, 25))}\n`,
      );
    }
  }
  return scenario;
}

interface CallbackRun {
  kind: StoreKind;
  result?: CallbackBenchResult;
  healthy?: SteadyResult;
  hanging?: SteadyResult;
  kill?: KillResult;
  failure?: string;
}

/** Runs `work` on a fresh server of its own, stopped again whatever happens. */
async function onFreshServer<T>(
  kind: StoreKind,
  work: (server: PayintakeInstance) => Promise<T>,
  rt: Runtime = OWN,
): Promise<T> {
  if (QUIET_WAIT_SECONDS > 0) await waitForQuiet(QUIET_WAIT_SECONDS);
  const server = await startPayintake(kind, { cwd: rt.cwd, node: rt.node });
  cleanups.push(server.cleanup);
  try {
    return await work(server);
  } finally {
    cleanups.splice(cleanups.indexOf(server.cleanup), 1);
    await server.cleanup().catch((err: Error) => log(`${kind} cleanup failed: ${err.message}`));
  }
}

const steadyLine = (r: SteadyResult) =>
  `${r.count} callbacks (${r.hung} hung) p50 ${r.p50.toFixed(0)} ms, p99 ${r.p99.toFixed(0)} ms, ` +
  `max ${r.max.toFixed(0)} ms, missing ${r.missing}, hung delivered later ${r.hungDelivered}`;

async function runCallbacks(kind: StoreKind, rt: Runtime = OWN): Promise<CallbackRun> {
  const run: CallbackRun = { kind };
  try {
    if (ONLY !== "callbacks" || process.env.BENCH_CALLBACK_BURST !== "0") {
      const result = await onFreshServer(
        kind,
        (server) => benchCallbacks(server, { idle: 200, burst: 3_000 }),
        rt,
      );
      run.result = result;
      log(
        `${rt.prefix}callbacks ${kind}: idle p50 ${result.idle.p50.toFixed(1)} ms, p99 ${result.idle.p99.toFixed(1)} ms; ` +
          `burst ${result.burst.count} in ${result.burst.seconds.toFixed(2)} s = ${Math.round(result.burst.perSecond)}/s ` +
          `(decisions ${Math.round(result.burst.decisionsPerSecond)}/s, drain ${Math.round(result.burst.drainPerSecond)}/s), duplicates ${result.burst.duplicates}`,
      );
    }
    // Another runtime is compared on the plain callbacks alone.
    if (rt !== OWN) return run;
    run.healthy = await onFreshServer(kind, (s) => benchSteadyReceiver(s, { ...STEADY, hangShare: 0 }));
    log(`callbacks ${kind}, healthy receiver: ${steadyLine(run.healthy)}`);
    run.hanging = await onFreshServer(kind, (s) => benchSteadyReceiver(s, STEADY));
    log(`callbacks ${kind}, ${STEADY.hangShare * 100} % hanging: ${steadyLine(run.hanging)}`);
    if (kind === "postgres") {
      run.kill = await onFreshServer(kind, (s) =>
        benchKilledWorker(s, () => startPeer(s, ROOT), { callbacks: 24 }),
      );
      log(
        `callbacks ${kind}, worker killed: ${run.kill.callbacks} callbacks (${run.kill.inFlightAtKill} at the receiver), ` +
          `all within ${run.kill.maxMs.toFixed(0)} ms of the kill (p50 ${run.kill.p50Ms.toFixed(0)} ms), missing ${run.kill.missing}`,
      );
    }
  } catch (err) {
    log(`callbacks ${kind} failed: ${(err as Error).message}`);
    run.failure = (err as Error).message.split("\n", 1)[0];
  }
  return run;
}

/** The hanging-receiver and killed-worker table, under the callbacks section. */
function isolationRows(runs: CallbackRun[]): string[] {
  const mark = (ok: boolean) => (ok ? "ok" : "**MISSED**");
  const rows: string[] = [];
  for (const r of runs) {
    const label = r.kind === "sqlite" ? "SQLite (embedded)" : "PostgreSQL";
    for (const [name, x] of [
      ["healthy", r.healthy],
      [`${STEADY.hangShare * 100} % of first attempts hang`, r.hanging],
    ] as const) {
      if (!x) continue;
      const target =
        x.hangShare > 0
          ? `p99 < ${ISOLATION_TARGETS.hangingP99Ms} ms: ${mark(x.p99 < ISOLATION_TARGETS.hangingP99Ms && x.missing === 0)}`
          : "";
      rows.push(
        `| ${label} | ${name} | ${x.count} (${x.hung} hung) | ${x.p50.toFixed(0)} | ${x.p99.toFixed(0)} | ${x.max.toFixed(0)} | ${x.missing} | ${target} |`,
      );
    }
    if (r.kill) {
      const k = r.kill;
      rows.push(
        `| ${label} | worker killed mid-send (${k.inFlightAtKill} of ${k.callbacks} at the receiver) | ${k.callbacks} | ` +
          `${k.p50Ms.toFixed(0)} after the kill | ${k.maxMs.toFixed(0)} (last) after the kill | | ${k.missing} | ` +
          `all < ${ISOLATION_TARGETS.killMs / 1000} s: ${mark(k.maxMs < ISOLATION_TARGETS.killMs && k.missing === 0)} |`,
      );
    }
  }
  return rows;
}

function callbacksSection(date: string, version: string, runs: CallbackRun[]): string {
  const mark = (ok: boolean) => (ok ? "ok" : "**MISSED**");
  const rows = runs.map((r) => {
    const label = r.kind === "sqlite" ? "SQLite (embedded)" : "PostgreSQL";
    if (!r.result) return `| ${label} | ${r.failure ? `failed: ${r.failure}` : "not run"} | | | | | | | |`;
    const { idle, burst } = r.result;
    const targets = [
      `p99 < ${CALLBACK_TARGETS.p99Ms} ms: ${mark(idle.p99 < CALLBACK_TARGETS.p99Ms)}`,
      `drain ≥ ${CALLBACK_TARGETS.perSecond}/s: ${mark(burst.drainPerSecond >= CALLBACK_TARGETS.perSecond)}`,
    ].join("; ");
    return (
      `| ${label} | ${idle.p50.toFixed(1)} | ${idle.p99.toFixed(1)} | ${idle.max.toFixed(1)} | ` +
      `${Math.round(burst.perSecond).toLocaleString("en-US")} | ${Math.round(burst.decisionsPerSecond).toLocaleString("en-US")} | ` +
      `${Math.round(burst.drainPerSecond).toLocaleString("en-US")} | ` +
      `${burst.duplicates} | ${targets} |`
    );
  });
  return [
    "## Callbacks: decision to receipt",
    "",
    `Measured ${date} on ${version} by \`npm run bench\` (bench/callbacks/delivery.ts); this section is rewritten by every run.`,
    "",
    "| Store | idle p50 ms | idle p99 ms | idle max ms | burst callbacks/s | burst decisions/s | drain callbacks/s | duplicates | Targets |",
    "|---|---:|---:|---:|---:|---:|---:|---:|---|",
    ...rows,
    "",
    "- A local receiver in the bench process plays the merchant and answers 200 at once; payintake runs as a " +
      "child process (LOG_LEVEL=warn, default callback settings: 64 in flight, 8 per receiver).",
    "- Idle: 200 approvals one at a time through the operator API; latency runs from sending the approval " +
      "to the callback's arrival at the receiver (one clock, the bench process's).",
    "- Burst: 3,000 approvals from 32 concurrent callers; callbacks/s = 3,000 ÷ the time from the first " +
      "approval to the last callback's arrival, so it includes deciding (decisions/s is the approvals alone); " +
      "drain callbacks/s counts only what arrived after the last approval was answered (delivery alone).",
    `- Targets: p99 < ${CALLBACK_TARGETS.p99Ms} ms at idle, at least ${CALLBACK_TARGETS.perSecond.toLocaleString("en-US")} ` +
      "callbacks delivered per second, held to the drain figure (delivery alone): the burst figure is " +
      "also bounded by how fast the 32 callers decide, on the same cores as the delivery.",
    "",
    "### When a receiver hangs, and when a worker dies",
    "",
    "| Store | Case | Callbacks | p50 ms | p99 ms | max ms | not arrived | Target |",
    "|---|---|---:|---:|---:|---:|---:|---|",
    ...isolationRows(runs),
    "",
    `- One receiver, approvals at ${STEADY.rate}/s for ${STEADY.seconds} s (${STEADY.rate * STEADY.seconds} callbacks), default ` +
      "settings; latency from sending the approval to the callback's arrival, for the callbacks that did not hang. " +
      `In the hanging case every ${Math.round(1 / STEADY.hangShare)}th callback's first attempt is never answered ` +
      "(cut at 10 s, retried 10 s later; those arrive later and are left out of the latency).",
    "- Worker killed: 24 callbacks decided on one PostgreSQL instance while the receiver holds every request " +
      "open; a second instance starts beside it; the first is killed with SIGKILL and the receiver starts " +
      "answering; times from the kill to each callback's arrival (sent by the second instance once the " +
      "dead one's 10 s leases lapse).",
  ].join("\n");
}

const ROUTING = { requests: 1_000, concurrency: 10, timeoutMs: 1_000 };

async function runRouting(
  kind: StoreKind,
): Promise<{ kind: StoreKind; result?: RoutingBenchResult; failure?: string }> {
  let server: PayintakeInstance | undefined;
  try {
    if (QUIET_WAIT_SECONDS > 0) await waitForQuiet(QUIET_WAIT_SECONDS);
    server = await startPayintake(kind, { cwd: ROOT });
    cleanups.push(server.cleanup);
    const result = await benchRouting(server, ROUTING);
    log(
      `routing ${kind}: normal p50 ${result.normal.p50.toFixed(1)} ms, p99 ${result.normal.p99.toFixed(1)} ms; ` +
        `unlucky ${result.unlucky.map((ms) => ms.toFixed(0)).join(", ")} ms; ` +
        `breaker open p50 ${result.afterOpen.p50.toFixed(1)} ms, p99 ${result.afterOpen.p99.toFixed(1)} ms`,
    );
    return { kind, result };
  } catch (err) {
    log(`routing ${kind} failed: ${(err as Error).message}`);
    return { kind, failure: (err as Error).message.split("\n", 1)[0] };
  } finally {
    if (server) {
      cleanups.splice(cleanups.indexOf(server.cleanup), 1);
      await server.cleanup().catch((err: Error) => log(`${kind} cleanup failed: ${err.message}`));
    }
  }
}

function routingSection(
  date: string,
  version: string,
  runs: { kind: StoreKind; result?: RoutingBenchResult; failure?: string }[],
): string {
  const mark = (ok: boolean) => (ok ? "ok" : "**MISSED**");
  const rows = runs.map((r) => {
    const label = r.kind === "sqlite" ? "SQLite (embedded)" : "PostgreSQL";
    if (!r.result) return `| ${label} | failed: ${r.failure ?? "unknown"} | | | | | |`;
    const { normal, unlucky, afterOpen, timeoutMs } = r.result;
    const worst = Math.max(...unlucky);
    const targets = [
      `open p99 ≤ 2 × normal p99: ${mark(afterOpen.p99 <= 2 * normal.p99)}`,
      `unlucky ≤ timeout + 250 ms: ${mark(worst <= timeoutMs + 250)}`,
    ].join("; ");
    return (
      `| ${label} | ${normal.p50.toFixed(1)} / ${normal.p99.toFixed(1)} | ${unlucky.length} | ` +
      `${unlucky.map((ms) => ms.toFixed(0)).join(", ")} | ${afterOpen.p50.toFixed(1)} / ${afterOpen.p99.toFixed(1)} | ` +
      `${afterOpen.max.toFixed(1)} | ${targets} |`
    );
  });
  return [
    "## Routing: deposits while the first channel hangs",
    "",
    `Measured ${date} on ${version} by \`npm run bench\` (bench/routing/hanging-channel.ts); this section is rewritten by every run.`,
    "",
    "| Store | normal p50 / p99 ms | unlucky deposits | their latency ms | breaker open p50 / p99 ms | breaker open max ms | Targets |",
    "|---|---:|---:|---|---:|---:|---|",
    ...rows,
    "",
    `- The preferred account (bank_code AKBANK) is behind an http channel played by the channel simulator in the bench process (timeout ${ROUTING.timeoutMs} ms); a manual account is the fallback.`,
    `- normal: ${ROUTING.requests} signed deposits, ${ROUTING.concurrency} at a time, the channel accepting at once (one ask per deposit), after 200 warm-up deposits.`,
    "- unlucky: the channel now hangs; deposits one at a time until one returns in under half the timeout (the breaker opened after 3 failures in a row); each of them waited for the timeout, then the fallback served it.",
    `- breaker open: ${ROUTING.requests} more deposits, ${ROUTING.concurrency} at a time; the dead channel is skipped without waiting, also after each 10 s cool-down, when a probe in the background (no payer) asks it whether it is back.`,
    "- Targets: with the breaker open, p99 within 2 × the normal p99; the unlucky deposits bounded by the channel timeout (plus 250 ms).",
  ].join("\n");
}

function sh(cmd: string, args: string[]): string {
  try {
    return execFileSync(cmd, args, { encoding: "utf8" }).trimEnd();
  } catch {
    return `(${cmd} not available)`;
  }
}

async function postgresVersion(): Promise<string> {
  const client = new pg.Client({ connectionString: PG_BASE_URL, connectionTimeoutMillis: 3_000 });
  try {
    await client.connect();
    const res = await client.query<{ server_version: string }>("SHOW server_version");
    return res.rows[0]?.server_version ?? "unknown";
  } catch (err) {
    return `unreachable (${(err as Error).message})`;
  } finally {
    await client.end().catch(() => {});
  }
}

async function machineSection(date: string): Promise<string> {
  return [
    "## Machine",
    "",
    `Last refreshed by \`npm run bench\` on ${date}.`,
    "",
    `- CPU: ${availableParallelism()} × ${cpus()[0]?.model ?? "unknown"} (\`nproc\`: ${sh("nproc", [])})`,
    `- Kernel: Linux ${release()}; Node.js ${process.version}; PostgreSQL ${await postgresVersion()} (same machine)`,
    "- Memory (`free -m`):",
    "",
    "```",
    sh("free", ["-m"]),
    "```",
  ].join("\n");
}

function missedTargets(scenarios: Scenario[]): string[] {
  return summarise(scenarios).flatMap((s) =>
    summaryChecks(s)
      .filter((c) => !c.met)
      .map((c) => `${s.label}: ${c.text}`),
  );
}

function depositsSection(date: string, version: string, scenarios: Scenario[]): string {
  const noise = noiseWarning(scenarios);
  const bareBound = scenarios.some((s) => s.key === "bare" && (s.result?.cpu.generator ?? 0) >= 0.9);
  const missed = missedTargets(scenarios);
  return [
    "## Signed direct deposits vs. bare Fastify",
    "",
    `Measured ${date} on ${version} by \`npm run bench\` (bench/deposits/run.ts); this section is rewritten by ` +
      "every run.",
    "",
    summaryTable(summarise(scenarios)),
    "",
    missed.length === 0 ? "All targets met." : `Missed targets: ${missed.join("; ")}.`,
    "",
    `Each of the ${ROUNDS} rounds, in the order measured:`,
    "",
    resultsTable(scenarios),
    "",
    "CPU used during the measured seconds, in cores (1.00 = one core busy all the time; the machine " +
      `has ${availableParallelism()} cores, shared by the load generator, the server and PostgreSQL; ` +
      '"anything else" is whatever else ran on the machine meanwhile, which makes figures less reliable. ' +
      "The last two columns are CPU microseconds per 200 answer: what one answer costs, whatever the " +
      "speed of the load generator, which sets the bare endpoint's figure):",
    "",
    cpuTable(scenarios),
    ...(noise ? ["", noise] : []),
    "",
    "### What is measured and how",
    "",
    `- Load: autocannon (in the bench process), ${CONNECTIONS} connections, pipelining 1, ` +
      `${WARMUP_SECONDS} s warmup then ${SECONDS} s measured, against each server in turn, in ` +
      `${ROUNDS} rounds of bare, SQLite, PostgreSQL and the two store floors (a fresh server and store ` +
      "each time); before each " +
      `server the bench waits (up to ${QUIET_WAIT_SECONDS} s) for a second in which the machine is idle.`,
    "- Requests: `POST /paymentapi/v1/deposits` direct deposits (amount 150.00), each built in " +
      "autocannon's `setupRequest` with a unique nonce, reference and user_id, the current " +
      "X-Timestamp and a correct X-Signature (HMAC-SHA256 over METHOD, PATH, BODY, TIMESTAMP, NONCE).",
    "- Reference: a bare Fastify 5 server (bench/deposits/bare-server.ts, child process, no logger) with one POST " +
      "route on the same path that parses the JSON body and answers `{success:true}`; it gets the very " +
      "same signed requests, so the load generator does identical work in every run.",
    "- Store floors (references, no targets): bench/deposits/store-floor.ts, a Fastify server whose deposit route " +
      "makes only the store calls a payintake deposit makes, through payintake's store layer (nonce and " +
      "business facts in one call, the insert, then waiting until the write is durable), on a fresh " +
      "store of each kind; no authentication, validation, routing, sealing, metrics or logging. It is " +
      "the most a deposit handler on this store could reach on this machine: the gap from bare to the " +
      "floor is the store's, the gap from the floor to payintake is the rest of a deposit's work.",
    ...(bareBound
      ? [
          "- The load generator needs about one core for the bare endpoint's rate, so on this machine the " +
            "bare figure is what one generator core can drive through any server, below Fastify's own " +
            "ceiling; if anything, the ratios flatter payintake.",
        ]
      : []),
    "- payintake: `node dist/main/cli.js serve` as a child process, LOG_LEVEL=warn, fresh data directory, " +
      "random master key and admin token; in each round once on the embedded SQLite store and once on " +
      "PostgreSQL in a fresh schema (default pool size), the two taking turns at going first. " +
      "Provisioned via the admin API: one firm (rate limit " +
      "1,000,000/s, webhook http://127.0.0.1:9/cb) and 3 payment accounts.",
    "- Figures: req/s (mean) is autocannon's mean of per-second response counts; 200/s counts only " +
      "200 responses (successful deposits) over the measured duration; p50/p99 are exact percentiles of " +
      "the 200 responses' latencies (in the summary, over every round's responses together); non-2xx " +
      "and errors (connection errors, timeouts) must be 0. Ratio = 200/s ÷ the bare endpoint's req/s " +
      "in the same round; the summary gives the median of the rounds' ratios, and the targets are held " +
      "to it and to the worst round's p99.",
    `- Targets: PostgreSQL ≥ ${TARGETS.postgresRatio.toFixed(2)}x bare, SQLite ≥ ` +
      `${TARGETS.sqliteRatio.toFixed(2)}x bare, p99 < ${TARGETS.p99Ms} ms.`,
  ].join("\n");
}

async function runMixed(): Promise<MixedResult[]> {
  const runs: MixedResult[] = [];
  for (const apiInstances of [1, 2]) {
    log(`mixed workload: ${apiInstances} api instance(s) + 1 worker on PostgreSQL, ${MIXED_SECONDS} s`);
    const r = await benchMixed({ cwd: ROOT, apiInstances, seconds: MIXED_SECONDS, concurrency: 32 });
    log(
      `  ${Math.round(r.perSecond)} ops/s, p50 ${r.latency.p50.toFixed(1)} ms, p99 ${r.latency.p99.toFixed(1)} ms, ` +
        `p99.9 ${r.latency.p999.toFixed(1)} ms, ${r.errors} errors, callbacks ${r.callbacks.delivered}/${r.callbacks.decided}`,
    );
    runs.push(r);
  }
  return runs;
}

async function runCallbacksOnly(date: string, version: string): Promise<void> {
  const runs: CallbackRun[] = [];
  for (const kind of STORES) runs.push(await runCallbacks(kind));
  if (STORES.length !== 2) log("BENCH_STORES narrowed: docs/BENCHMARKS.md left unchanged");
  else {
    writeDocSections(BENCHMARKS_DOC, [{ name: "callbacks", body: callbacksSection(date, version, runs) }]);
    log(`wrote ${BENCHMARKS_DOC}`);
  }
  await cleanupAll();
  if (runs.some((r) => r.failure)) process.exitCode = 1;
}

async function runMixedOnly(date: string, version: string): Promise<void> {
  const runs = await runMixed();
  writeDocSections(BENCHMARKS_DOC, [{ name: "mixed", body: mixedSection(date, version, runs) }]);
  log(`wrote ${BENCHMARKS_DOC}`);
  if (runs.some((r) => r.callbacks.delivered !== r.callbacks.decided)) process.exitCode = 1;
}

function median(values: number[]): number {
  const v = values.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (v.length === 0) return Number.NaN;
  const mid = Math.floor(v.length / 2);
  return v.length % 2 === 1 ? (v[mid] as number) : ((v[mid - 1] as number) + (v[mid] as number)) / 2;
}

/** Runtimes compared in one run: each round measures every runtime in turn, the first one alternating. */
async function runRuntimes(runtimes: Runtime[], date: string, version: string): Promise<void> {
  const scenarios = new Map<string, Scenario[]>(runtimes.map((rt) => [rt.name, []]));
  const callbacks = new Map<string, (CallbackRun & { round: number })[]>(runtimes.map((rt) => [rt.name, []]));
  for (let round = 1; round <= ROUNDS; round++) {
    log(`round ${round} of ${ROUNDS}`);
    const rtOrder = round % 2 === 1 ? runtimes : [...runtimes].reverse();
    const order = round % 2 === 1 ? STORES : [...STORES].reverse();
    for (const rt of rtOrder) {
      const list = scenarios.get(rt.name) as Scenario[];
      list.push(await runBare(round, rt));
      for (const kind of order) list.push(await runPayintake(kind, round, undefined, rt));
      for (const kind of order) list.push(await runFloor(kind, round, rt));
    }
    if (CALLBACKS)
      for (const rt of rtOrder)
        for (const kind of order) callbacks.get(rt.name)?.push({ ...(await runCallbacks(kind, rt)), round });
  }
  const all = [...scenarios.values()].flat();
  process.stdout.write(`\n${resultsTable(all)}\n\n${cpuTable(all)}\n\n`);
  for (const line of statusDetails(all)) process.stdout.write(`${line}\n`);
  const complete =
    all.every((s) => s.result) && [...callbacks.values()].flat().every((r) => r.result !== undefined);
  if (STORES.length !== 2) log("BENCH_STORES narrowed: docs/BENCHMARKS.md left unchanged");
  else {
    writeDocSections(BENCHMARKS_DOC, [
      { name: "runtimes", body: runtimesSection(date, version, runtimes, scenarios, callbacks) },
    ]);
    log(`wrote ${BENCHMARKS_DOC}`);
  }
  if (!complete) process.exitCode = 1;
}

function runtimesSection(
  date: string,
  version: string,
  runtimes: Runtime[],
  scenarios: Map<string, Scenario[]>,
  callbacks: Map<string, (CallbackRun & { round: number })[]>,
): string {
  const int = (n: number) => (Number.isFinite(n) ? Math.round(n).toLocaleString("en-US") : "n/a");
  const x = (n: number) => (Number.isFinite(n) ? `${n.toFixed(2)}x` : "n/a");
  const deposits = [
    "| Runtime | Server | rounds | 200/s (median) | p50 ms (all rounds) | p99 ms (worst round) | ratio to bare (median) | payintake ÷ its store floor (median; each round) | server µs per 200 (median) |",
    "|---|---|---:|---:|---:|---:|---:|---|---:|",
  ];
  for (const rt of runtimes) {
    const list = scenarios.get(rt.name) ?? [];
    for (const s of summarise(list)) {
      const runs = list.filter((r) => r.key === s.key && r.result);
      const usPer200 = median(
        runs.map((r) => ((r.result?.cpu.server ?? Number.NaN) * 1e6) / (r.result?.okPerSec ?? Number.NaN)),
      );
      let floorCell = "—";
      if (s.key === "sqlite" || s.key === "postgres") {
        const each = runs.map((r) => {
          const floor = list.find((f) => f.key === `floor-${s.key}` && f.round === r.round)?.result;
          return floor && r.result ? r.result.okPerSec / floor.okPerSec : Number.NaN;
        });
        floorCell = `**${x(median(each))}** (${each.map((v) => (Number.isFinite(v) ? v.toFixed(2) : "n/a")).join(", ")})`;
      }
      deposits.push(
        `| ${rt.name} (${rt.version}) | ${s.label.slice(rt.prefix.length)} | ${s.measured}/${s.rounds} | ${int(s.okPerSec)} | ${s.p50.toFixed(2)} | ${s.worstP99.toFixed(2)} | ${s.key === "bare" ? "1.00x" : x(s.ratio)} | ${floorCell} | ${int(usPer200)} |`,
      );
    }
  }
  const cb = [
    "| Runtime | Store | round | idle p50 ms | idle p99 ms | burst callbacks/s | burst decisions/s | drain callbacks/s | duplicates |",
    "|---|---|---:|---:|---:|---:|---:|---:|---:|",
  ];
  for (const rt of runtimes)
    for (const r of callbacks.get(rt.name) ?? []) {
      const store = r.kind === "sqlite" ? "SQLite (embedded)" : "PostgreSQL";
      if (!r.result) {
        cb.push(`| ${rt.name} | ${store} | ${r.round} | failed: ${r.failure ?? "unknown"} | | | | | |`);
        continue;
      }
      const { idle, burst } = r.result;
      cb.push(
        `| ${rt.name} (${rt.version}) | ${store} | ${r.round} | ${idle.p50.toFixed(1)} | ${idle.p99.toFixed(1)} | ${int(burst.perSecond)} | ${int(burst.decisionsPerSecond)} | ${int(burst.drainPerSecond)} | ${burst.duplicates} |`,
      );
    }
  const all = [...scenarios.values()].flat();
  const noise = noiseWarning(all);
  return [
    "## Node.js runtimes: the same code on each",
    "",
    `Measured ${date} on ${version} by \`BENCH_RUNTIMES=... npm run bench\` (bench/deposits/run.ts); this section is rewritten by every such run.`,
    `Runtimes: ${runtimes.map((rt) => `${rt.name} = Node.js ${rt.version}`).join(", ")}. The load generator (autocannon, and the callbacks' ` +
      `receiver and callers) ran on Node.js ${process.version} for all of them; only the servers changed runtime.`,
    "",
    `Deposits: ${ROUNDS} rounds; in each, every runtime in turn (the first alternating from round to round, never two at ` +
      `once) measured its bare endpoint, payintake on each store and the two store floors, ${WARMUP_SECONDS} s warmup + ` +
      `${SECONDS} s measured at ${CONNECTIONS} connections each (the section above says how).`,
    "",
    ...deposits,
    "",
    "Each round, in the order measured:",
    "",
    resultsTable(all),
    "",
    "CPU during the measured seconds:",
    "",
    cpuTable(all),
    ...(noise ? ["", noise] : []),
    "",
    ...(cb.length > 2
      ? [
          "Callbacks (bench/callbacks/delivery.ts, as in the Callbacks section: 200 approvals one at a time, then a burst of 3,000), each runtime in every round:",
          "",
          ...cb,
        ]
      : []),
  ].join("\n");
}

async function main(): Promise<void> {
  if (!existsSync(join(ROOT, "dist", "main", "cli.js")))
    throw new Error("dist/main/cli.js is missing: run `npm run build` (npm run bench does it for you)");
  const date = new Date().toISOString().replace(/\.\d+Z$/, "Z");
  const version = codeVersion(ROOT);
  // BENCH_CPU_PROF_DIR keeps the .cpuprofile files (for Chrome DevTools or a closer look).
  const keptProfiles = process.env.BENCH_CPU_PROF_DIR;
  const profileDir = PROFILE
    ? (keptProfiles ?? mkdtempSync(join(tmpdir(), "payintake-bench-prof-")))
    : undefined;
  if (profileDir && !keptProfiles)
    cleanups.push(async () => rmSync(profileDir, { recursive: true, force: true }));
  log(
    `${version}; ${availableParallelism()} cores, Node ${process.version}; ${CONNECTIONS} connections, ` +
      `${WARMUP_SECONDS} s warmup + ${SECONDS} s per server${PROFILE ? "; CPU profiling on" : ""}`,
  );

  if (ONLY === "mixed") return runMixedOnly(date, version);
  if (ONLY === "callbacks") return runCallbacksOnly(date, version);
  const runtimes = parseRuntimes(process.env.BENCH_RUNTIMES);
  if (runtimes.length > 0) return runRuntimes(runtimes, date, version);
  const scenarios: Scenario[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    if (ROUNDS > 1) log(`round ${round} of ${ROUNDS}`);
    scenarios.push(await runBare(round));
    // The stores take turns at being measured right after the bare endpoint, so that drift within
    // a round does not always fall on the same one.
    const order = round % 2 === 1 ? STORES : [...STORES].reverse();
    for (const kind of order) scenarios.push(await runPayintake(kind, round, profileDir));
    // After both stores, so that the floors do not stand between the bare endpoint and them.
    if (!PROFILE) for (const kind of order) scenarios.push(await runFloor(kind, round));
  }
  const callbackRuns: CallbackRun[] = [];
  if (CALLBACKS && !PROFILE) for (const kind of STORES) callbackRuns.push(await runCallbacks(kind));
  const routingRuns: Awaited<ReturnType<typeof runRouting>>[] = [];
  if (CALLBACKS && !PROFILE) for (const kind of STORES) routingRuns.push(await runRouting(kind));
  const mixedRuns = CALLBACKS && !PROFILE && STORES.includes("postgres") ? await runMixed() : [];

  process.stdout.write(
    `\n${summaryTable(summarise(scenarios))}\n\n${resultsTable(scenarios)}\n\n${cpuTable(scenarios)}\n\n`,
  );
  for (const line of statusDetails(scenarios)) process.stdout.write(`${line}\n`);
  const noise = noiseWarning(scenarios);
  if (noise) log(noise);

  const complete =
    scenarios.every((s) => s.result) &&
    callbackRuns.every((r) => !r.failure) &&
    routingRuns.every((r) => r.result);
  if (PROFILE) log("profiling run: docs/BENCHMARKS.md left unchanged (the profiler slows the server down)");
  else if (STORES.length !== 2) log("BENCH_STORES narrowed: docs/BENCHMARKS.md left unchanged");
  else {
    writeDocSections(BENCHMARKS_DOC, [
      { name: "machine", body: await machineSection(date) },
      { name: "deposits", body: depositsSection(date, version, scenarios) },
      ...(callbackRuns.length > 0
        ? [{ name: "callbacks", body: callbacksSection(date, version, callbackRuns) }]
        : []),
      ...(routingRuns.length > 0
        ? [{ name: "routing", body: routingSection(date, version, routingRuns) }]
        : []),
      ...(mixedRuns.length > 0 ? [{ name: "mixed", body: mixedSection(date, version, mixedRuns) }] : []),
    ]);
    log(`wrote ${BENCHMARKS_DOC}`);
  }
  await cleanupAll();
  // Missed targets are reported, not failed; a server that could not be measured is a failure.
  if (!complete) process.exitCode = 1;
}

main().catch(async (err: unknown) => {
  log(`failed: ${(err as Error).stack ?? String(err)}`);
  await cleanupAll();
  process.exitCode = 1;
});
