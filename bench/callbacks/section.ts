import type { StoreKind } from "../shared/payintake.js";
import type { CallbackBenchResult } from "./delivery.js";
import type { KillResult, SteadyResult } from "./isolation.js";

/** At idle, p99 under 200 ms; delivery alone (the burst's drain) at least 1,000 callbacks a second. */
export const CALLBACK_TARGETS = { p99Ms: 200, perSecond: 1_000 };
/** The callbacks that did not hang, p99 under 2 s; a killed worker's callbacks all within 15 s. */
export const ISOLATION_TARGETS = { hangingP99Ms: 2_000, killMs: 15_000 };

/** One store's callbacks: the idle and burst figures, the steady receiver's two cases, the kill. */
export interface CallbackRun {
  kind: StoreKind;
  result?: CallbackBenchResult;
  healthy?: SteadyResult;
  hanging?: SteadyResult;
  kill?: KillResult;
  failure?: string;
}

/** The steady receiver's settings: approvals a second, for how long, and the share of first attempts that hang. */
export interface Steady {
  rate: number;
  seconds: number;
  hangShare: number;
}

/** The hanging-receiver and killed-worker table, under the callbacks section. */
function isolationRows(runs: CallbackRun[], steady: Steady): string[] {
  const mark = (ok: boolean) => (ok ? "ok" : "**MISSED**");
  const rows: string[] = [];
  for (const r of runs) {
    const label = r.kind === "sqlite" ? "SQLite (embedded)" : "PostgreSQL";
    for (const [name, x] of [
      ["healthy", r.healthy],
      [`${steady.hangShare * 100} % of first attempts hang`, r.hanging],
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

/** The "callbacks" section of docs/BENCHMARKS.md. */
export function callbacksSection(date: string, version: string, runs: CallbackRun[], steady: Steady): string {
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
    ...isolationRows(runs, steady),
    "",
    `- One receiver, approvals at ${steady.rate}/s for ${steady.seconds} s (${steady.rate * steady.seconds} callbacks), default ` +
      "settings; latency from sending the approval to the callback's arrival, for the callbacks that did not hang. " +
      `In the hanging case every ${Math.round(1 / steady.hangShare)}th callback's first attempt is never answered ` +
      "(cut at 10 s, retried 10 s later; those arrive later and are left out of the latency).",
    "- Worker killed: 24 callbacks decided on one PostgreSQL instance while the receiver holds every request " +
      "open; a second instance starts beside it; the first is killed with SIGKILL and the receiver starts " +
      "answering; times from the kill to each callback's arrival (sent by the second instance once the " +
      "dead one's 10 s leases lapse).",
  ].join("\n");
}
