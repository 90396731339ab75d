import type { StoreKind } from "../shared/payintake.js";
import type { CallbackBenchResult } from "./delivery.js";
import type { KillResult, SteadyResult } from "./isolation.js";
import type { KillsResult } from "./kills-under-load.js";
import { FLOOD_CONNECTIONS } from "./load-scene.js";
import type { BusyResult, Spread } from "./under-load.js";

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

/**
 * Under a saturating load: the hanging case's p99 within 1.5 × the same run's p99 without hanging,
 * and under 2 s; with kills, every callback delivered within 60 s of the load's end.
 */
export const LOAD_TARGETS = { ratio: 1.5, p99Ms: 2_000, afterLoadMs: 60_000 };

/** The callbacks-under-load cases of one run (PostgreSQL only). */
export interface CallbackLoadRun {
  healthy?: BusyResult;
  hanging?: BusyResult;
  kills?: KillsResult;
  failure?: string;
}

const ms = (x: number) => (Number.isFinite(x) ? x.toFixed(0) : "—");
const thousands = (x: number) => Math.round(x).toLocaleString("en-US");
const spreadCell = (s: Spread) => `${ms(s.p50)} / ${ms(s.p99)} / ${ms(s.max)}`;

/** Whether the hanging case held its targets against the same run's case without hanging. */
export function busyVerdict(healthy: BusyResult, hanging: BusyResult): boolean {
  return (
    hanging.p99 <= LOAD_TARGETS.ratio * healthy.p99 &&
    hanging.p99 < LOAD_TARGETS.p99Ms &&
    hanging.missing === 0 &&
    healthy.missing === 0
  );
}

export function killsVerdict(k: KillsResult): boolean {
  return k.pendingAt60 === 0 && k.missing === 0;
}

function busyRows(run: CallbackLoadRun): { outcome: string[]; stages: string[] } {
  const mark = (ok: boolean) => (ok ? "ok" : "**MISSED**");
  const outcome: string[] = [];
  const stages: string[] = [];
  for (const [name, x] of [
    ["no hanging", run.healthy],
    [`${(run.hanging?.hangShare ?? 0.02) * 100} % of first attempts hang`, run.hanging],
  ] as const) {
    if (!x) continue;
    const target =
      x === run.hanging && run.healthy
        ? `p99 ≤ ${LOAD_TARGETS.ratio} × ${ms(run.healthy.p99)} and < ${LOAD_TARGETS.p99Ms} ms: ${mark(busyVerdict(run.healthy, x))}`
        : "";
    outcome.push(
      `| ${name} | ${thousands(x.flood.okPerSecond)} (p99 ${x.flood.p99.toFixed(0)} ms) | ${x.flood.machineBusyPct.toFixed(0)} % (${x.flood.stealPct.toFixed(0)} %) | ` +
        `${x.flood.apiCores.reduce((a, b) => a + b, 0).toFixed(2)} / ${x.flood.workerCores.toFixed(2)} / ${x.flood.dbCores.toFixed(2)} | ` +
        `${x.count} (${x.hung} hung) | ${ms(x.p50)} | ${ms(x.p99)} | ${ms(x.max)} | ${spreadCell(x.fromSending)} | ${x.missing} | ${target} |`,
    );
    const s = x.slowest;
    stages.push(
      `| ${name} | ${spreadCell(x.stages.decision)} | ${spreadCell(x.stages.afterAnswer)} | ` +
        `${spreadCell(x.stages.send)} | ${x.attemptedBeforeAnswer} | ${ms(s.total)} = ${ms(s.decision)} + ${ms(s.afterAnswer)} + ${ms(s.send)} | ${x.maxHeld} |`,
    );
  }
  return { outcome, stages };
}

function killsRow(k: KillsResult): string {
  const mark = (ok: boolean) => (ok ? "ok" : "**MISSED**");
  const kills = k.kills.map((x) => `${x.atS.toFixed(0)} s (${(x.restartMs / 1000).toFixed(1)} s)`).join(", ");
  return (
    `| ${k.callbacks} | ${k.failingFirst} / ${k.hangingFirst} | ${kills} | ${k.interrupted} | ${k.pendingAt60} | ` +
    `${Number.isFinite(k.lastAfterLoadMs) ? `${(k.lastAfterLoadMs / 1000).toFixed(1)} s` : "—"} | ` +
    `${k.dueAfterRestart.count}: ${ms(k.dueAfterRestart.p99)} / ${ms(k.dueAfterRestart.max)}` +
    `${k.dueAfterRestart.unattempted > 0 ? ` (${k.dueAfterRestart.unattempted} not attempted before the next kill)` : ""} | ` +
    `${k.heldByDead.count}: ${ms(k.heldByDead.p99)} / ${ms(k.heldByDead.max)} | ${k.repeatedAttemptNumbers} | ` +
    `${k.failed} / ${k.missing} | all within ${LOAD_TARGETS.afterLoadMs / 1000} s: ${mark(killsVerdict(k))} |`
  );
}

/** The "callbacks-load" section of docs/BENCHMARKS.md, beside the callbacks section. */
export function callbacksLoadSection(date: string, version: string, run: CallbackLoadRun): string {
  const busy = busyRows(run);
  const steady = run.healthy ?? run.hanging;
  const k = run.kills;
  return [
    "## Callbacks under a saturating deposit load",
    "",
    `Measured ${date} on ${version} by \`npm run bench\` (bench/callbacks/under-load.ts, kills-under-load.ts); ` +
      "this section is rewritten by every run that measures it.",
    ...(run.failure ? ["", `Failed: ${run.failure}`] : []),
    "",
    "| Case | deposits/s (their p99) | machine busy (steal) | cores: api / worker / postgres | Callbacks | p50 ms | p99 ms | max ms | from sending the approval: p50 / p99 / max ms | not arrived | Target |",
    "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ...busy.outcome,
    "",
    "Where the callbacks that did not hang spent their time, ms (p50 / p99 / max of each stage on its own):",
    "",
    "| Case | approval sent → answered | answered → first attempt | first attempt → arrival | first attempt before the answer | slowest: total = the three | most held at once |",
    "|---|---:|---:|---:|---:|---|---:|",
    ...busy.stages,
    "",
    "With the worker killed three times:",
    "",
    "| Callbacks | first attempts 500 / hanging | kills, s into the load (restart) | attempts interrupted | pending 60 s after the load | last arrival after the load | due at a restart: n, p99 / max ms | held by a dead worker, kill → next attempt: n, p99 / max ms | an attempt number twice | failed / lost | Target |",
    "|---:|---:|---|---:|---:|---:|---|---|---:|---:|---|",
    ...(k ? [killsRow(k)] : []),
    "",
    "- One PostgreSQL schema, one `worker` instance sending every callback and two `api` instances, default " +
      "settings. " +
      `${FLOOD_CONNECTIONS} clients deposit flat out on another firm (autocannon, in a process of its own, ` +
      "split over the api instances) from 3 s before the first approval; machine busy is the share of both cores over the flood, steal the share the hypervisor gave to others; " +
      "cores: what the api instances (together), the worker and PostgreSQL used over the flood (1.00 = one core).",
    steady
      ? `- One receiver, approvals at ${steady.rate}/s for ${steady.seconds} s (${steady.rate * steady.seconds} callbacks) ` +
        "round-robin over the api instances; p50, p99 and max from the decision (the approval's answer: the " +
        "callback row is committed by then) to the callback's arrival, for the callbacks that did not hang; beside " +
        "them the same from sending the approval, which adds the approval's own time on the busy api instances. " +
        "The two cases run one after the other, the one without hanging first, each on fresh instances and schema. " +
        `In the hanging case every ${Math.round(1 / (run.hanging?.hangShare ?? 0.02))}th callback's first attempt is ` +
        "never answered (cut at 10 s, retried 10 s later)."
      : "- The busy receiver's cases did not run.",
    "- Where the time went: the approval's answer (its callback row is committed by then), the first attempt's " +
      "`started_at` from the store's record, and the arrival, on one machine's clock. Answered → first attempt " +
      "is the wait for the worker, below zero for the callbacks whose first " +
      "attempt started before the approval's answer reached the bench (counted beside it). Most held at once: " +
      "the hanging first attempts the receiver held open at one time.",
    k
      ? `- Kills: the same load for ${k.seconds} s at ${k.rate} approvals/s; the worker instance is killed with SIGKILL ` +
        `${k.kills.length} times (at the times in the table) and started again at once (the time it took to listen in brackets). The receiver answers 500 to 8 % of first ` +
        "attempts and never answers 2 %, and takes every later attempt, so every callback's schedule has it " +
        "delivered within 60 s of the load's end. Due at a restart: callbacks decided before the new worker " +
        "listened and not attempted before the kill, those a dead worker held left out; from the later of " +
        "their decision and the restart to their first arrival. Held by a dead worker: the callbacks leased " +
        "when a worker was killed (read from the store as its successor starts); from the kill to their next " +
        "arrival (a lease runs 10 s). Attempts interrupted: attempts on record as cut by a worker's death. " +
        "An attempt number twice: callbacks whose receiver got one X-Callback-Attempt number in two requests."
      : "- The kill case did not run.",
  ].join("\n");
}
