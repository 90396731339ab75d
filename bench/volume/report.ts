import type { StoreKind } from "../shared/payintake.js";
import { sizeLabel } from "./config.js";
import { mb } from "./disk.js";
import type { BuildTime } from "./index-builds.js";
import type { PathResult } from "./measure.js";
import type { SeedResult } from "./seed.js";

/** What one store measured at each size, and the targets of issue 33 held against it. */
export interface StepResult {
  size: number;
  seed?: SeedResult;
  serverStartMs: number;
  peakRssBytes: number;
  storeBytes: number;
  paths: PathResult[];
  serverErrors: string[];
  /** The volume migrations' index builds on this size (index-builds.ts), when timed. */
  indexBuilds?: BuildTime[];
}

export interface StoreRun {
  kind: StoreKind;
  steps: StepResult[];
  /** Why the store stopped growing before the largest size, if it did. */
  failure?: string;
}

export const TARGETS = {
  screenP50Ms: 50,
  screenP99Ms: 200,
  /** The growth of p50 from the smallest to the largest size, for paths at least this slow at the smallest. */
  growthMax: 3,
  growthFromP50Ms: 5,
  merchantOverEmpty: 1.2,
  csvFirstByteMs: 200,
  rssBytes: 300 * 1024 ** 2,
} as const;

const ms = (n: number | undefined) =>
  n === undefined || !Number.isFinite(n) ? "n/a" : n < 10 ? n.toFixed(1) : n.toFixed(0);
const seconds = (s: number) => `${s < 10 ? s.toFixed(1) : Math.round(s).toLocaleString("en-US")} s`;
const mark = (ok: boolean) => (ok ? "ok" : "**MISSED**");

/** p50 of the largest size ÷ p50 of the smallest (sizes above 0). */
export function growthOf(bySize: Map<number, PathResult>): number {
  const sizes = [...bySize.keys()].filter((s) => s > 0).sort((a, b) => a - b);
  if (sizes.length < 2) return Number.NaN;
  const small = bySize.get(sizes[0] as number);
  const large = bySize.get(sizes[sizes.length - 1] as number);
  return (large?.p50 ?? Number.NaN) / (small?.p50 ?? Number.NaN);
}

const answeredAll = (r: PathResult) => Object.keys(r.statuses).every((s) => s === "200");

/** The checks of one path over its sizes: "text: ok" or "text: **MISSED** (where)". */
export function pathChecks(bySize: Map<number, PathResult>): { text: string; met: boolean }[] {
  const results = [...bySize.entries()].sort(([a], [b]) => a - b);
  const first = results[0]?.[1];
  if (!first || first.group === "store") return [];
  const where = (fails: (r: PathResult) => boolean) =>
    results.filter(([, r]) => fails(r)).map(([size]) => sizeLabel(size));
  const check = (text: string, fails: (r: PathResult) => boolean) => {
    const missed = where(fails);
    return { text: missed.length === 0 ? text : `${text} (${missed.join(", ")})`, met: missed.length === 0 };
  };
  const checks = [check("all 200", (r) => !answeredAll(r))];
  if (first.group === "merchant") {
    const empty = bySize.get(0)?.p50 ?? Number.NaN;
    const limit = empty * TARGETS.merchantOverEmpty;
    checks.push(check(`p50 ≤ ${ms(limit)} ms (empty + 20 %)`, (r) => !(r.p50 <= limit)));
    return checks;
  }
  if (first.name.startsWith("CSV"))
    checks.push(
      check(
        `first byte p50 < ${TARGETS.csvFirstByteMs} ms`,
        (r) => !((r.firstByte?.p50 ?? Number.NaN) < TARGETS.csvFirstByteMs),
      ),
    );
  else {
    checks.push(check(`p50 < ${TARGETS.screenP50Ms} ms`, (r) => !(r.p50 < TARGETS.screenP50Ms)));
    checks.push(check(`p99 < ${TARGETS.screenP99Ms} ms`, (r) => !(r.p99 < TARGETS.screenP99Ms)));
  }
  const smallest = [...bySize.entries()].filter(([s]) => s > 0).sort(([a], [b]) => a - b)[0]?.[1];
  const growth = growthOf(bySize);
  if (smallest && smallest.p50 >= TARGETS.growthFromP50Ms && Number.isFinite(growth))
    checks.push({ text: `growth ≤ ${TARGETS.growthMax}`, met: growth <= TARGETS.growthMax });
  return checks;
}

/** Each path's results by size, paths in the order measured. */
export function bySizeOf(run: StoreRun): Map<string, Map<number, PathResult>> {
  const paths = new Map<string, Map<number, PathResult>>();
  for (const step of run.steps)
    for (const r of step.paths) {
      const sizes = paths.get(r.name) ?? new Map<number, PathResult>();
      sizes.set(step.size, r);
      paths.set(r.name, sizes);
    }
  return paths;
}

/** "SQLite", "PostgreSQL": the stores as the combined tables' columns name them. */
const SHORT: Record<StoreKind, string> = { sqlite: "SQLite", postgres: "PostgreSQL" };

/** Each size measured by any of the runs, ascending (0 is the empty store). */
function sizesOf(runs: StoreRun[]): number[] {
  return [...new Set(runs.flatMap((run) => run.steps.map((s) => s.size)))].sort((a, b) => a - b);
}

/** A path's checks that missed, per store: "" when every check was met, "—" when none applies. */
function targetsCell(perStore: { kind: StoreKind; bySize?: Map<number, PathResult> }[]): string {
  const checked = perStore.map(({ kind, bySize }) => ({ kind, checks: bySize ? pathChecks(bySize) : [] }));
  if (checked.every((c) => c.checks.length === 0)) return "—";
  const missed = checked
    .map(({ kind, checks }) => ({ kind, texts: checks.filter((c) => !c.met).map((c) => c.text) }))
    .filter((m) => m.texts.length > 0);
  if (missed.length === 0) return "ok";
  return missed.map((m) => `${SHORT[m.kind]}: ${m.texts.join(", ")} **MISSED**`).join("; ");
}

/** Every path, each store's p50 / p99 per size side by side, its growth, and what its targets missed. */
export function pathsTable(runs: StoreRun[], calls: number): string {
  const sizes = sizesOf(runs);
  const grown = sizes.filter((s) => s > 0);
  const growthHead =
    grown.length >= 2
      ? `growth ${sizeLabel(grown[grown.length - 1] as number)} ÷ ${sizeLabel(grown[0] as number)}`
      : "growth";
  const byRun = runs.map((run) => ({ kind: run.kind, paths: bySizeOf(run) }));
  const names = [...new Set(byRun.flatMap((r) => [...r.paths.keys()]))];
  const head = byRun.flatMap((r) => [
    ...sizes.map((s) => `${SHORT[r.kind]} ${sizeLabel(s)}`),
    `${SHORT[r.kind]} ${growthHead}`,
  ]);
  const rows = [`| Path | ${head.join(" | ")} | Targets |`, `|---|${head.map(() => "---:").join("|")}|---|`];
  for (const name of names) {
    const cells = byRun.flatMap((r) => {
      const bySize = r.paths.get(name);
      const growth = bySize ? growthOf(bySize) : Number.NaN;
      return [
        ...sizes.map((size) => {
          const res = bySize?.get(size);
          if (!res) return "—";
          const short = res.calls < calls ? ` (${res.calls} calls)` : "";
          return `${ms(res.p50)} / ${ms(res.p99)}${short}`;
        }),
        Number.isFinite(growth) ? `${growth.toFixed(2)}x` : "—",
      ];
    });
    const targets = targetsCell(byRun.map((r) => ({ kind: r.kind, bySize: r.paths.get(name) })));
    rows.push(`| ${name} | ${cells.join(" | ")} | ${targets} |`);
  }
  return rows.join("\n");
}

/** The checks each store missed, path by path, for the line under the table. */
export function missedTargets(runs: StoreRun[]): string[] {
  return runs.flatMap((run) => {
    const missed = [...bySizeOf(run)].flatMap(([name, bySize]) =>
      pathChecks(bySize)
        .filter((c) => !c.met)
        .map((c) => `${name} (${c.text})`),
    );
    return missed.length === 0 ? [] : [`${SHORT[run.kind]}: ${missed.join("; ")}`];
  });
}

/** The path during which the server's peak RSS rose the most (the first path's rise is not known: counted as none). */
function peakPath(step: StepResult): string {
  let before = Number.NaN;
  let best = { name: "—", rise: 0 };
  for (const r of step.paths) {
    if (r.peakRssAfterBytes === undefined) continue;
    const rise = Number.isFinite(before) ? r.peakRssAfterBytes - before : 0;
    if (rise > best.rise) best = { name: r.name, rise };
    before = r.peakRssAfterBytes;
  }
  return best.rise > 0 ? `${best.name} (+${mb(best.rise)})` : "—";
}

export function stepsTable(runs: StoreRun[]): string {
  const rows = [
    "| Store | Size | seeding, transactions/s | seed time | VACUUM ANALYZE | store on disk | server start | server peak RSS | RSS < 300 MB | peak rose most during |",
    "|---|---:|---:|---:|---:|---:|---:|---:|---|---|",
  ];
  for (const run of runs)
    for (const s of run.steps) {
      const seed = s.seed;
      rows.push(
        `| ${SHORT[run.kind]} | ${sizeLabel(s.size)} | ${seed ? Math.round(seed.perSecond).toLocaleString("en-US") : "—"} | ` +
          `${seed ? seconds(seed.seconds) : "—"} | ${seed && run.kind === "postgres" ? seconds(seed.settleSeconds) : "—"} | ` +
          `${mb(s.storeBytes)} | ${seconds(s.serverStartMs / 1000)} | ${mb(s.peakRssBytes)} | ${mark(s.peakRssBytes < TARGETS.rssBytes)} | ${peakPath(s)} |`,
      );
    }
  return rows.join("\n");
}

/** The CSV export of a day: time to the first byte and to the last, and its size, per store and size. */
export function csvTable(runs: StoreRun[]): string {
  const head = runs.flatMap((run) => [
    `${SHORT[run.kind]} first byte p50 / p99 ms`,
    `${SHORT[run.kind]} total p50 / p99 ms`,
    `${SHORT[run.kind]} bytes (median)`,
  ]);
  const rows = [`| Size | ${head.join(" | ")} |`, `|---:|${head.map(() => "---:").join("|")}|`];
  for (const size of sizesOf(runs)) {
    const cells = runs.flatMap((run) => {
      const r = run.steps.find((s) => s.size === size)?.paths.find((p) => p.name.startsWith("CSV"));
      if (!r) return ["—", "—", "—"];
      return [
        `${ms(r.firstByte?.p50)} / ${ms(r.firstByte?.p99)}`,
        `${ms(r.p50)} / ${ms(r.p99)}`,
        Math.round(r.bytes).toLocaleString("en-US"),
      ];
    });
    rows.push(`| ${sizeLabel(size)} | ${cells.join(" | ")} |`);
  }
  return rows.join("\n");
}

/** The migrations' index builds, seconds per index, store and size (none when not timed). */
export function buildsTable(runs: StoreRun[]): string | undefined {
  const columns = runs.flatMap((run) =>
    run.steps.filter((s) => s.indexBuilds !== undefined).map((step) => ({ kind: run.kind, step })),
  );
  if (columns.length === 0) return undefined;
  const names = [...new Set(columns.flatMap((c) => (c.step.indexBuilds ?? []).map((b) => b.name)))];
  const secondsOf = (s: StepResult, name: string) => s.indexBuilds?.find((b) => b.name === name)?.seconds;
  const cell = (n: number | undefined) => (n === undefined ? "—" : n.toFixed(1));
  const total = (s: StepResult) => (s.indexBuilds ?? []).reduce((sum, b) => sum + b.seconds, 0);
  return [
    `| Index | ${columns.map((c) => `${SHORT[c.kind]} ${sizeLabel(c.step.size)} s`).join(" | ")} |`,
    `|---|${columns.map(() => "---:").join("|")}|`,
    ...names.map((name) => `| ${name} | ${columns.map((c) => cell(secondsOf(c.step, name))).join(" | ")} |`),
    `| **all** | ${columns.map((c) => `**${total(c.step).toFixed(1)}**`).join(" | ")} |`,
  ].join("\n");
}

/** Answers other than 200, and what the server logged at error level, per size. */
export function problems(run: StoreRun): string[] {
  const lines: string[] = [];
  if (run.failure) lines.push(`- ${SHORT[run.kind]}: stopped growing: ${run.failure}`);
  for (const s of run.steps) {
    for (const r of s.paths)
      if (!answeredAll(r))
        lines.push(
          `- ${SHORT[run.kind]}, ${sizeLabel(s.size)}, ${r.name}: ${JSON.stringify(r.statuses)}; first: ${(r.failure ?? "").replaceAll("|", "\\|").replaceAll("\n", " ")}`,
        );
    for (const e of s.serverErrors)
      lines.push(`- ${SHORT[run.kind]}, ${sizeLabel(s.size)}, server log: \`${e.replaceAll("`", "'")}\``);
  }
  return lines;
}
