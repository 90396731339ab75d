/**
 * `npm run bench`: signed direct deposits against payintake (embedded SQLite, then PostgreSQL),
 * next to a bare Fastify endpoint driven the same way. Every server is a child process; autocannon
 * runs here. Prints a markdown table and rewrites its sections of docs/BENCHMARKS.md.
 */

import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { benchCallbacks } from "../callbacks/delivery.js";
import { benchKilledWorker, benchSteadyReceiver, type SteadyResult } from "../callbacks/isolation.js";
import { loadComplete, loadDocSection, runLoadCases } from "../callbacks/load-cases.js";
import { type CallbackRun, callbacksSection } from "../callbacks/section.js";
import type { Track } from "../callbacks/under-load.js";
import { benchMixed, type MixedResult, mixedSection } from "../mixed/workload.js";
import { benchRouting } from "../routing/hanging-channel.js";
import { ROUTING, type RoutingRun, routingSection } from "../routing/section.js";
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
  summaryTable,
} from "./report.js";
import { OWN, parseRuntimes, type Runtime, runtimesSection } from "./runtimes.js";
import { depositsSection, machineSection } from "./sections.js";
import {
  CALLBACKS,
  CONNECTIONS,
  MIXED_SECONDS,
  ONLY,
  PROFILE,
  QUIET_WAIT_SECONDS,
  ROUNDS,
  SECONDS,
  STEADY,
  STORES,
  WARMUP_SECONDS,
} from "./settings.js";

const log = (line: string) => process.stdout.write(`[bench] ${line}\n`);

/**
 * The callbacks under a saturating deposit load (PostgreSQL): on with the other callbacks cases
 * unless BENCH_CALLBACK_LOAD is 0, false or no; alone with BENCH_ONLY=callbacks-load.
 */
const CALLBACK_LOAD = !["0", "false", "no"].includes(process.env.BENCH_CALLBACK_LOAD ?? "");

// Everything started is stopped again, also on Ctrl-C.
const cleanups: (() => Promise<void>)[] = [];
async function cleanupAll(): Promise<void> {
  while (cleanups.length > 0) {
    const fn = cleanups.pop();
    await fn?.().catch((err: Error) => log(`cleanup failed: ${err.message}`));
  }
}
const track: Track = (cleanup) => {
  cleanups.push(cleanup);
  return () => {
    const i = cleanups.indexOf(cleanup);
    if (i !== -1) cleanups.splice(i, 1);
  };
};
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

/** The callbacks under a saturating deposit load (bench/callbacks/load-cases.ts), with this run's settings. */
const runCallbacksLoad = () =>
  runLoadCases({ cwd: ROOT, ...STEADY, quietSeconds: QUIET_WAIT_SECONDS, log, track });

async function runRouting(kind: StoreKind): Promise<RoutingRun> {
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
  const loadRun = CALLBACK_LOAD && STORES.includes("postgres") ? await runCallbacksLoad() : undefined;
  if (STORES.length !== 2) log("BENCH_STORES narrowed: the callbacks section left unchanged");
  const sections = [
    ...(STORES.length === 2
      ? [{ name: "callbacks", body: callbacksSection(date, version, runs, STEADY) }]
      : []),
    ...(loadRun ? [loadDocSection(date, version, loadRun)] : []),
  ];
  if (sections.length > 0) {
    writeDocSections(BENCHMARKS_DOC, sections);
    log(`wrote ${BENCHMARKS_DOC}`);
  }
  await cleanupAll();
  if (runs.some((r) => r.failure) || !loadComplete(loadRun)) process.exitCode = 1;
}

async function runCallbacksLoadOnly(date: string, version: string): Promise<void> {
  const loadRun = await runCallbacksLoad();
  writeDocSections(BENCHMARKS_DOC, [loadDocSection(date, version, loadRun)]);
  log(`wrote ${BENCHMARKS_DOC}`);
  await cleanupAll();
  if (!loadComplete(loadRun)) process.exitCode = 1;
}

async function runMixedOnly(date: string, version: string): Promise<void> {
  const runs = await runMixed();
  writeDocSections(BENCHMARKS_DOC, [{ name: "mixed", body: mixedSection(date, version, runs) }]);
  log(`wrote ${BENCHMARKS_DOC}`);
  if (runs.some((r) => r.callbacks.delivered !== r.callbacks.decided)) process.exitCode = 1;
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
  if (ONLY === "callbacks-load") return runCallbacksLoadOnly(date, version);
  const runtimes = parseRuntimes(process.env.BENCH_RUNTIMES, log);
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
  const loadRun =
    CALLBACKS && !PROFILE && CALLBACK_LOAD && STORES.includes("postgres")
      ? await runCallbacksLoad()
      : undefined;
  const routingRuns: RoutingRun[] = [];
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
    loadComplete(loadRun) &&
    routingRuns.every((r) => r.result);
  if (PROFILE) log("profiling run: docs/BENCHMARKS.md left unchanged (the profiler slows the server down)");
  else if (STORES.length !== 2) log("BENCH_STORES narrowed: docs/BENCHMARKS.md left unchanged");
  else {
    writeDocSections(BENCHMARKS_DOC, [
      { name: "machine", body: await machineSection(date) },
      { name: "deposits", body: depositsSection(date, version, scenarios) },
      ...(callbackRuns.length > 0
        ? [{ name: "callbacks", body: callbacksSection(date, version, callbackRuns, STEADY) }]
        : []),
      ...(loadRun ? [loadDocSection(date, version, loadRun)] : []),
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
