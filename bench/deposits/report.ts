import { availableParallelism } from "node:os";
import { type LoadResult, percentile } from "../shared/load.js";

/** One measured server in one round: the result, or why it could not be measured. */
export interface Scenario {
  /** The floors (bench/deposits/store-floor.ts) are references, like bare: measured, held to no target. */
  key: "bare" | "sqlite" | "postgres" | "floor-sqlite" | "floor-postgres";
  label: string;
  /** 1-based; each round measures the bare endpoint and then each store, one after the other. */
  round?: number;
  result?: LoadResult;
  failure?: string;
}

/**
 * What payintake's deposits are held to (issue 50): at least this share of the store floor's 200/s
 * on the same store in the same round, and the p99. The ratio to the bare endpoint is shown, not
 * judged: on this 2-core machine it measures the load generator as much as the server.
 */
export const TARGETS = {
  floorRatio: 0.75,
  p99Ms: 25,
} as const;

export interface Check {
  text: string;
  met: boolean;
}

const int = (n: number) => (Number.isFinite(n) ? Math.round(n).toLocaleString("en-US") : "n/a");
const ms = (n: number) => (Number.isFinite(n) ? n.toFixed(2) : "n/a");
const cores = (n: number | null) => (n === null ? "—" : n.toFixed(2));

export function ratioToBare(s: Scenario, bare: Scenario): number {
  if (!s.result || !bare.result || bare.result.reqPerSecMean <= 0) return Number.NaN;
  return s.result.okPerSec / bare.result.reqPerSecMean;
}

function checkCell(list: Check[]): string {
  return list.map((c) => `${c.text}: ${c.met ? "ok" : "**MISSED**"}`).join("; ");
}

/** Every round's figures, each server's ratio taken against the bare endpoint of its own round. */
export function resultsTable(scenarios: Scenario[]): string {
  const rows = [
    "| Round | Server | req/s (mean) | 200/s | p50 ms | p99 ms | non-2xx | errors | ratio to bare |",
    "|---:|---|---:|---:|---:|---:|---:|---:|---:|",
  ];
  for (const s of scenarios) {
    const round = s.round ?? 1;
    const r = s.result;
    if (!r) {
      rows.push(
        `| ${round} | ${s.label} | — | — | — | — | — | — | not measured: ${s.failure ?? "skipped"} |`,
      );
      continue;
    }
    const bare = bareOf(scenarios, round);
    const ratio = s.key === "bare" ? "1.00x" : `${ratioToBare(s, bare).toFixed(2)}x`;
    rows.push(
      `| ${round} | ${s.label} | ${int(r.reqPerSecMean)} | ${int(r.okPerSec)} | ${ms(r.p50)} | ${ms(r.p99)} | ${r.non2xx} | ${r.errors} | ${ratio} |`,
    );
  }
  return rows.join("\n");
}

/** The store floor measured on `s`'s store in `s`'s round, for the payintake servers. */
function floorOf(scenarios: Scenario[], s: Scenario): Scenario | undefined {
  const key = s.key === "sqlite" ? "floor-sqlite" : s.key === "postgres" ? "floor-postgres" : undefined;
  return scenarios.find((x) => x.key === key && (x.round ?? 1) === (s.round ?? 1));
}

/** 200/s ÷ the same store's floor's 200/s in the same round. */
export function ratioToFloor(s: Scenario, floor: Scenario | undefined): number {
  if (!s.result || !floor?.result || floor.result.okPerSec <= 0) return Number.NaN;
  return s.result.okPerSec / floor.result.okPerSec;
}

function bareOf(scenarios: Scenario[], round: number): Scenario {
  return (
    scenarios.find((s) => s.key === "bare" && (s.round ?? 1) === round) ?? { key: "bare", label: "bare" }
  );
}

function median(values: number[]): number {
  const sorted = values.filter(Number.isFinite).sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1
    ? (sorted[mid] ?? Number.NaN)
    : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

/**
 * One server over all rounds. Throughput: the median of its rounds, and the median of its ratios,
 * each taken against the bare endpoint measured moments before it in the same round (this machine's
 * speed drifts by a third within minutes, so a ratio across rounds would measure the drift).
 * Latency: p50 and p99 over every measured response of every round, and the worst round's p99,
 * which is what the p99 target is held to (pooling alone would weigh a slow round least).
 */
export interface Summary {
  key: Scenario["key"];
  label: string;
  rounds: number;
  measured: number;
  okPerSec: number;
  ratios: number[];
  ratio: number;
  /** payintake's servers: each round's ratio to its store's floor, and their median. */
  floorRatios: number[];
  floorRatio: number;
  p50: number;
  p99: number;
  worstP99: number;
  non2xx: number;
  errors: number;
}

export function summarise(scenarios: Scenario[]): Summary[] {
  const keys = [...new Set(scenarios.map((s) => s.key))];
  return keys.map((key) => {
    const runs = scenarios.filter((s) => s.key === key);
    const measured = runs.filter((s) => s.result);
    const ratios = measured.map((s) =>
      key === "bare" ? 1 : ratioToBare(s, bareOf(scenarios, s.round ?? 1)),
    );
    const floorRatios = measured.map((s) => ratioToFloor(s, floorOf(scenarios, s)));
    const all = new Float64Array(measured.reduce((n, s) => n + (s.result?.latencies.length ?? 0), 0));
    let at = 0;
    for (const s of measured) {
      all.set(s.result?.latencies ?? [], at);
      at += s.result?.latencies.length ?? 0;
    }
    all.sort();
    return {
      key,
      label: runs[0]?.label ?? key,
      rounds: runs.length,
      measured: measured.length,
      okPerSec: median(measured.map((s) => s.result?.okPerSec ?? Number.NaN)),
      ratios,
      ratio: median(ratios),
      floorRatios,
      floorRatio: median(floorRatios),
      p50: percentile(all, 0.5),
      p99: percentile(all, 0.99),
      worstP99:
        measured.length > 0 ? Math.max(...measured.map((m) => m.result?.p99 ?? Number.NaN)) : Number.NaN,
      non2xx: measured.reduce((n, s) => n + (s.result?.non2xx ?? 0), 0),
      errors: measured.reduce((n, s) => n + (s.result?.errors ?? 0), 0),
    };
  });
}

/** The targets a server is held to over the rounds; the bare reference only has to answer. */
export function summaryChecks(s: Summary): Check[] {
  const answered = { text: "non-2xx = 0", met: s.non2xx === 0 && s.errors === 0 };
  // A round without its own measurement (of the store, or of the bare endpoint it is compared
  // with) is a failed round, never one quietly left out of the median.
  const everyRound = s.measured === s.rounds;
  if (!everyRound) return [{ text: "measured in every round", met: false }];
  if (s.key === "bare" || s.key === "floor-sqlite" || s.key === "floor-postgres") return [answered];
  // A round without its store's floor is a failed round, never one quietly left out of the median.
  const floored = s.floorRatios.length === s.rounds && s.floorRatios.every(Number.isFinite);
  return [
    floored
      ? {
          text: `median ratio to the store floor ≥ ${TARGETS.floorRatio.toFixed(2)}x`,
          met: s.floorRatio >= TARGETS.floorRatio,
        }
      : { text: "the store floor measured in every round", met: false },
    { text: `p99 < ${TARGETS.p99Ms} ms in every round`, met: s.worstP99 < TARGETS.p99Ms },
    answered,
  ];
}

export function summaryTable(summaries: Summary[]): string {
  const rows = [
    "| Server | rounds | 200/s (median) | p50 ms (all rounds) | p99 ms (all rounds) | p99 ms (worst round) | non-2xx | errors | ratio to the store floor (median; each round) | ratio to bare (median) | Targets |",
    "|---|---:|---:|---:|---:|---:|---:|---:|---|---:|---|",
  ];
  for (const s of summaries) {
    const each = s.floorRatios.map((r) => r.toFixed(2)).join(", ");
    const toFloor =
      s.key === "sqlite" || s.key === "postgres" ? `**${s.floorRatio.toFixed(2)}x** (${each})` : "—";
    const toBare = s.key === "bare" ? "1.00x" : `${s.ratio.toFixed(2)}x`;
    rows.push(
      `| ${s.label} | ${s.measured}/${s.rounds} | ${int(s.okPerSec)} | ${ms(s.p50)} | ${ms(s.p99)} | ${ms(s.worstP99)} | ${s.non2xx} | ${s.errors} | ${toFloor} | ${toBare} | ${checkCell(summaryChecks(s))} |`,
    );
  }
  return rows.join("\n");
}

/** Cores busy with processes other than the generator, the server and PostgreSQL during a run. */
export function otherCores(cpu: LoadResult["cpu"]): number {
  const busyCores = (cpu.machineBusyPct / 100) * availableParallelism();
  return Math.max(0, busyCores - cpu.generator - cpu.server - (cpu.db ?? 0));
}

/** A warning when something else on the machine took a noticeable share of the CPU. */
export function noiseWarning(scenarios: Scenario[]): string | undefined {
  const noisy = scenarios.filter((s) => s.result && otherCores(s.result.cpu) > 0.3);
  if (noisy.length === 0) return undefined;
  const list = noisy.map(
    (s) => `${s.label}, round ${s.round ?? 1} (${otherCores(s.result?.cpu ?? NO_CPU).toFixed(2)} cores)`,
  );
  return (
    `Something else kept the CPU busy during: ${list.join(", ")} (other processes, or kernel work ` +
    "not charged to ours). Those figures are lower than the machine can do; rerun on a quiet machine."
  );
}

const NO_CPU: LoadResult["cpu"] = { generator: 0, server: 0, db: null, machineBusyPct: 0 };

/**
 * CPU microseconds per 200 answer: what one answer costs, whatever the speed of the load generator
 * (which sets the bare endpoint's figure, and so the ratio to bare).
 */
function perAnswer(coresUsed: number | null, okPerSec: number): string {
  if (coresUsed === null || !(okPerSec > 0)) return "—";
  return Math.round((coresUsed * 1e6) / okPerSec).toLocaleString("en-US");
}

export function cpuTable(scenarios: Scenario[]): string {
  const rows = [
    "| Round | Server | load generator | server process | postgres processes | anything else | machine busy | server µs per 200 | postgres µs per 200 |",
    "|---:|---|---:|---:|---:|---:|---:|---:|---:|",
  ];
  for (const s of scenarios) {
    const r = s.result;
    if (!r) continue;
    const c = r.cpu;
    rows.push(
      `| ${s.round ?? 1} | ${s.label} | ${cores(c.generator)} | ${cores(c.server)} | ${cores(c.db)} | ${cores(otherCores(c))} | ${c.machineBusyPct.toFixed(0)}% | ${perAnswer(c.server, r.okPerSec)} | ${perAnswer(c.db, r.okPerSec)} |`,
    );
  }
  return rows.join("\n");
}

/**
 * Each round's servers in the order measured: throughput, p99 and ratio to that round's bare
 * endpoint, and where the CPU went meanwhile (the doc's one table per round; the run's log also
 * prints resultsTable and cpuTable).
 */
export function roundsTable(scenarios: Scenario[]): string {
  const rows = [
    "| Round | Server | 200/s | p99 ms | ratio to bare | load generator | server process | postgres processes | anything else | machine busy | server µs per 200 | postgres µs per 200 |",
    "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
  ];
  for (const s of scenarios) {
    const round = s.round ?? 1;
    const r = s.result;
    if (!r) {
      rows.push(`| ${round} | ${s.label} | not measured: ${s.failure ?? "skipped"} | | | | | | | | | |`);
      continue;
    }
    const c = r.cpu;
    const ratio = s.key === "bare" ? "1.00x" : `${ratioToBare(s, bareOf(scenarios, round)).toFixed(2)}x`;
    rows.push(
      `| ${round} | ${s.label} | ${int(r.okPerSec)} | ${ms(r.p99)} | ${ratio} | ${cores(c.generator)} | ${cores(c.server)} | ${cores(c.db)} | ${cores(otherCores(c))} | ${c.machineBusyPct.toFixed(0)}% | ${perAnswer(c.server, r.okPerSec)} | ${perAnswer(c.db, r.okPerSec)} |`,
    );
  }
  return rows.join("\n");
}

export function statusDetails(scenarios: Scenario[]): string[] {
  const lines: string[] = [];
  for (const s of scenarios) {
    const r = s.result;
    if (!r) continue;
    if (r.non2xx > 0 || r.errors > 0) {
      lines.push(
        `${s.label}: statuses ${JSON.stringify(r.statusCounts)}, ${r.errors} errors (of which ${r.timeouts} timeouts)`,
      );
      for (const sample of r.errorSamples) lines.push(`  sample: ${sample}`);
    }
  }
  return lines;
}
