/**
 * `npm run bench:volume` (issue 33): how every path merchants and operators use behaves as the
 * transactions table grows. Each store (SQLite, then PostgreSQL) is measured empty, then grown to
 * each size and measured again through the real HTTP server. Writes the "volume" section of
 * docs/BENCHMARKS.md (runs on both stores with a size of at least 100,000) and the raw figures to
 * .bench-tmp/. Not part of CI: 10,000,000 transactions take hours and tens of gigabytes.
 *
 *   VOLUME_SIZES=100000,1000000,10000000   sizes in transactions (default 100000,1000000)
 *   VOLUME_STORES=sqlite                   one store only (default sqlite,postgres)
 *   VOLUME_CALLS=40 VOLUME_WARMUP=3        measured and warm-up calls per path and size
 *   VOLUME_PATH_BUDGET_S=120               a path stops early once its calls took this long
 *   VOLUME_PER_DAY=20000 VOLUME_PENDING=3000 VOLUME_SEED=33   the seeded history's shape
 *   VOLUME_BUILDS_FROM=1000000             from this size on, time the migrations' index builds (0: never)
 *   VOLUME_BUSY_DAY=200000 VOLUME_BUSY_PENDING=10000   the summary on a busy day: transactions
 *                                          made in today's Türkiye day (a list: one store each; 0: none)
 *   VOLUME_BUSY_AB_BASE=/path/to/checkout   the busy day against that checkout (built), call by
 *                                          call on two stores at once; printed, the doc untouched
 *   VOLUME_BUSY_AB_MONTH=10000000          with it, also a month of that many transactions
 *   VOLUME_ONLY=sizes|busy-day             one of the two cases (default both)
 *   VOLUME_KEEP=1                          keep the last store (its settings are logged) to look into it
 */

import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createSecretBox } from "../../src/crypto/secret-box.js";
import type { Child } from "../shared/children.js";
import { BENCHMARKS_DOC, writeDocSections } from "../shared/doc-sections.js";
import {
  createKeptStore,
  type KeptStore,
  openKeptStore,
  peakRssBytes,
  serverErrors,
  startServer,
} from "../shared/kept-store.js";
import type { StoreKind } from "../shared/payintake.js";
import { codeVersion, ROOT } from "../shared/tree.js";
import { type BusyDayResult, measureBusyDay } from "./busy-day.js";
import { type BusyDayComparison, compareBusyDay, compareMonth, comparisonLine } from "./busy-day-ab.js";
import { busyDaySection } from "./busy-day-section.js";
import { sizeLabel, volumeConfig } from "./config.js";
import { CONSOLE_PATHS } from "./console-paths.js";
import { bytesPerTransaction, ensureRoom } from "./disk.js";
import { type BuildTime, timeIndexBuilds } from "./index-builds.js";
import { measure, type PathResult, type Timing } from "./measure.js";
import { ADMIN_PATHS, MERCHANT_PATHS, type PathContext } from "./paths.js";
import { createPeople } from "./people.js";
import { type Provisioned, provision, signIn } from "./provision.js";
import type { StepResult, StoreRun } from "./report.js";
import { type Fixture, fixtureFor } from "./rows.js";
import { createSamples } from "./samples.js";
import { volumeSection } from "./section.js";
import { type SeedResult, seedStep } from "./seed.js";
import { measureStoreCalls } from "./store-calls.js";

const cfg = volumeConfig();
const timing: Timing = { warmup: cfg.warmup, calls: cfg.calls, budgetMs: cfg.pathBudgetMs };
const runId = randomBytes(3).toString("hex");
const log = (line: string) => process.stdout.write(`[volume] ${line}\n`);

// Everything started is stopped again, also on Ctrl-C.
const cleanups: (() => Promise<void>)[] = [];
async function cleanupAll(): Promise<void> {
  while (cleanups.length > 0)
    await cleanups
      .pop()?.()
      .catch((err: Error) => log(`cleanup failed: ${err.message}`));
}
for (const signal of ["SIGINT", "SIGTERM"] as const)
  process.once(signal, () => {
    log(`${signal}: cleaning up`);
    void cleanupAll().finally(() => process.exit(130));
  });

/** Runs `work` while payintake serves the store; stops it whatever happens. */
async function serve(
  vs: KeptStore,
  work: (server: Child) => Promise<PathResult[]>,
): Promise<Omit<StepResult, "size" | "storeBytes">> {
  const server = await startServer(vs, ROOT);
  const stop = () => server.child.stop();
  cleanups.push(stop);
  try {
    const paths = await work(server.child);
    return {
      paths,
      serverStartMs: server.startMs,
      peakRssBytes: peakRssBytes(server.child.pid),
      serverErrors: serverErrors(server.child),
    };
  } finally {
    cleanups.splice(cleanups.indexOf(stop), 1);
    await stop();
  }
}

async function measurePaths(
  vs: KeptStore,
  server: Child,
  fx: Fixture,
  prov: Provisioned,
  size: number,
): Promise<PathResult[]> {
  const ctx: PathContext = {
    url: server.url,
    adminToken: vs.adminToken,
    session: await signIn(server.url, prov.operator),
    fx,
    firms: prov.firms,
    size,
    tag: `${runId}-${vs.kind}-${sizeLabel(size)}`,
    samples: createSamples(fx, size),
    people: createPeople(fx.seed),
    written: [],
  };
  const results: PathResult[] = [];
  for (const spec of [...MERCHANT_PATHS, ...CONSOLE_PATHS, ...ADMIN_PATHS]) {
    const r = await measure(spec.name, spec.group, timing, (i) => spec.call(ctx, i));
    // Which path takes the server's memory to its peak.
    r.peakRssAfterBytes = peakRssBytes(server.pid);
    results.push(r);
    const odd = Object.keys(r.statuses).some((s) => s !== "200")
      ? `, answers ${JSON.stringify(r.statuses)}`
      : "";
    log(
      `${vs.kind} ${sizeLabel(size)}: ${spec.name}: p50 ${r.p50.toFixed(1)} ms, p99 ${r.p99.toFixed(1)} ms${odd}`,
    );
  }
  return results;
}

interface Finished {
  step: StepResult;
  /** Where the store's bytes land, for the next step's check of free disk. */
  directory: string | undefined;
}

/** The server stopped: the store calls, and the store's size. */
async function finishStep(
  vs: KeptStore,
  fx: Fixture,
  size: number,
  served: Omit<StepResult, "size" | "storeBytes">,
  seed?: SeedResult,
): Promise<Finished> {
  const figures = await measureStoreCalls(vs, fx, timing);
  for (const r of figures.calls)
    log(`${vs.kind} ${sizeLabel(size)}: ${r.name}: p50 ${r.p50.toFixed(1)} ms, p99 ${r.p99.toFixed(1)} ms`);
  const step: StepResult = {
    size,
    ...(seed ? { seed } : {}),
    ...served,
    paths: [...served.paths, ...figures.calls],
    storeBytes: figures.bytes,
  };
  return { step, directory: figures.directory };
}

async function grow(vs: KeptStore, fx: Fixture, from: number, to: number): Promise<SeedResult> {
  const store = await openKeptStore(vs, { seeding: true });
  try {
    log(`${vs.kind}: seeding ${sizeLabel(from)} → ${sizeLabel(to)}`);
    const seeded = await seedStep(store, fx, createSecretBox(vs.masterKey), { from, to }, log);
    log(
      `${vs.kind}: seeded ${seeded.transactions.toLocaleString("en-US")} transactions (${seeded.rows.toLocaleString("en-US")} rows) ` +
        `in ${seeded.seconds.toFixed(1)} s (${seeded.buildSeconds.toFixed(1)} s of it making them): ` +
        `${Math.round(seeded.perSecond).toLocaleString("en-US")} transactions/s` +
        (vs.kind === "postgres" ? `; VACUUM ANALYZE ${seeded.settleSeconds.toFixed(1)} s` : ""),
    );
    return seeded;
  } finally {
    await store.close();
  }
}

async function timeBuilds(vs: KeptStore): Promise<BuildTime[]> {
  const store = await openKeptStore(vs, { seeding: true });
  try {
    return await timeIndexBuilds(store, log);
  } finally {
    await store.close();
  }
}

/** The empty store: made ready through the admin API, then measured as every size is. */
async function measureEmpty(vs: KeptStore): Promise<{ prov: Provisioned; fx: Fixture; last: Finished }> {
  let made: { prov: Provisioned; fx: Fixture } | undefined;
  const served = await serve(vs, async (server) => {
    const prov = await provision(server.url, vs.adminToken);
    made = { prov, fx: fixtureFor(cfg, prov, Date.now() - 60_000) };
    return measurePaths(vs, server, made.fx, prov, 0);
  });
  if (!made) throw new Error("the empty store was not provisioned");
  return { ...made, last: await finishStep(vs, made.fx, 0, served) };
}

async function runStore(kind: StoreKind): Promise<StoreRun> {
  const run: StoreRun = { kind, steps: [] };
  const vs = await createKeptStore(kind);
  cleanups.push(vs.remove);
  try {
    const { prov, fx, last: empty } = await measureEmpty(vs);
    run.steps.push(empty.step);
    let last = empty;
    let perTransaction = bytesPerTransaction(kind, 0, 0);
    for (const [i, size] of cfg.sizes.entries()) {
      const from = i === 0 ? 0 : (cfg.sizes[i - 1] as number);
      if (last.directory) ensureRoom(last.directory, size - from, perTransaction);
      else log(`${kind}: free disk not checked (PostgreSQL's data directory is not on this machine)`);
      const seeded = await grow(vs, fx, from, size);
      const served = await serve(vs, (server) => measurePaths(vs, server, fx, prov, size));
      const before = last.step.storeBytes;
      last = await finishStep(vs, fx, size, served, seeded);
      if (cfg.buildsFrom > 0 && size >= cfg.buildsFrom) last.step.indexBuilds = await timeBuilds(vs);
      run.steps.push(last.step);
      perTransaction = bytesPerTransaction(kind, last.step.storeBytes - before, size - from);
    }
  } catch (err) {
    run.failure = (err as Error).message.split("\n", 1)[0];
    log(`${kind} stopped: ${(err as Error).stack ?? String(err)}`);
  } finally {
    cleanups.splice(cleanups.indexOf(vs.remove), 1);
    if (process.env.VOLUME_KEEP === "1")
      log(`${kind}: store kept (VOLUME_KEEP=1): ${JSON.stringify({ env: vs.env })}`);
    else await vs.remove().catch((err: Error) => log(`${kind}: removing the store failed: ${err.message}`));
  }
  return run;
}

async function main(): Promise<void> {
  if (!existsSync(join(ROOT, "dist", "main", "cli.js")))
    throw new Error(
      "dist/main/cli.js is missing: run `npm run build` (npm run bench:volume does it for you)",
    );
  const date = new Date().toISOString().replace(/\.\d+Z$/, "Z");
  const version = codeVersion(ROOT);
  log(
    `${version}; sizes ${cfg.sizes.map(sizeLabel).join(", ")} on ${cfg.stores.join(" and ")}; ${cfg.calls} calls per path`,
  );
  const runs: StoreRun[] = [];
  if (cfg.only !== "busy-day") for (const kind of cfg.stores) runs.push(await runStore(kind));
  const busy: BusyDayResult[] = [];
  const compared: BusyDayComparison[] = [];
  const base = process.env.VOLUME_BUSY_AB_BASE;
  if (cfg.only !== "sizes") {
    for (const size of cfg.busyDays)
      for (const kind of cfg.stores)
        if (base) compared.push(await compareBusyDay(kind, size, base, cfg, timing, cleanups, log));
        else busy.push(await measureBusyDay(kind, size, cfg, timing, cleanups, log));
    if (base && cfg.busyMonth > 0)
      for (const kind of cfg.stores)
        compared.push(await compareMonth(kind, cfg.busyMonth, base, cfg, timing, cleanups, log));
  }
  for (const c of compared)
    log(`busy day, ${c.kind}, ${c.size.toLocaleString("en-US")}: ${comparisonLine(c)}`);
  const outDir = join(ROOT, ".bench-tmp");
  mkdirSync(outDir, { recursive: true });
  const raw = join(outDir, `volume-${date.replaceAll(":", "")}.json`);
  writeFileSync(raw, `${JSON.stringify({ date, version, config: cfg, runs, busy, compared }, null, 1)}\n`);
  log(`raw figures in ${raw}`);
  const sections: { name: string; body: string }[] = [];
  if (runs.length > 0) {
    const section = volumeSection(runs, cfg, date, version);
    process.stdout.write(`\n${section}\n\n`);
    if (cfg.stores.length === 2 && Math.max(...cfg.sizes) >= 100_000)
      sections.push({ name: "volume", body: section });
    else log("one store or sizes under 100,000: the volume section left unchanged");
  }
  if (busy.length > 0) {
    const section = busyDaySection(busy, cfg, date, version);
    process.stdout.write(`\n${section}\n\n`);
    if (cfg.stores.length === 2) sections.push({ name: "volume-busy-day", body: section });
    else log("one store: the busy day's section left unchanged");
  }
  if (sections.length > 0) {
    writeDocSections(BENCHMARKS_DOC, sections);
    log(`wrote ${sections.map((s) => s.name).join(", ")} in ${BENCHMARKS_DOC}`);
  }
  if (runs.some((r) => r.failure)) process.exitCode = 1;
}

main()
  .catch(async (err: unknown) => {
    log(`failed: ${(err as Error).stack ?? String(err)}`);
    process.exitCode = 1;
  })
  .finally(cleanupAll);
