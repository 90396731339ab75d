import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import type { CallbackRun } from "../callbacks/section.js";
import { ROOT } from "../shared/tree.js";
import { noiseWarning, type Scenario, summarise } from "./report.js";
import { CONNECTIONS, ROUNDS, SECONDS, WARMUP_SECONDS } from "./settings.js";

/**
 * A Node.js runtime to run the servers under. The load generator (this process) is the same for all
 * of them; a runtime's tree (`cwd`) must be installed and built with that runtime (better-sqlite3 is
 * a native addon built for one Node.js ABI).
 */
export interface Runtime {
  name: string;
  node: string;
  cwd: string;
  version: string;
  /** Put before the labels of its servers ("" for the bench's own runtime). */
  prefix: string;
}

export const OWN: Runtime = {
  name: "own",
  node: process.execPath,
  cwd: ROOT,
  version: process.version,
  prefix: "",
};

/**
 * BENCH_RUNTIMES="20=/usr/bin/node,24=/path/to/node@/path/to/tree": compare runtimes in one run,
 * alternating in every round (never at the same time). Each entry is NAME=NODE_BINARY, optionally
 * @TREE: a checkout of the same commit installed (`npm install`) and built (`npm run build`) with
 * that binary; without it, this tree.
 */
export function parseRuntimes(spec: string | undefined, log: (line: string) => void): Runtime[] {
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

function median(values: number[]): number {
  const v = values.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (v.length === 0) return Number.NaN;
  const mid = Math.floor(v.length / 2);
  return v.length % 2 === 1 ? (v[mid] as number) : ((v[mid - 1] as number) + (v[mid] as number)) / 2;
}

/** The "runtimes" section: the same deposits and callbacks under each Node.js runtime. */
export function runtimesSection(
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
      `${SECONDS} s measured at ${CONNECTIONS} connections each (the deposits section says how).`,
    "",
    ...deposits,
    "",
    "Each round's figures and the CPU of each process are printed by the run (its log), not kept here.",
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
