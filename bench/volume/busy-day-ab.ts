import { cpSync, rmSync } from "node:fs";
import type { StoreKind } from "../shared/payintake.js";
import type { Answer } from "../shared/timed-http.js";
import { ROOT, shortCommit } from "../shared/tree.js";
import {
  type BusyStore,
  type Cleanups,
  dropBusyStore,
  type Log,
  prepareBusyStore,
  serving,
  summaryCaller,
} from "./busy-day.js";
import type { VolumeConfig } from "./config.js";
import { percentile, type Timing } from "./measure.js";

/**
 * The busy day's summary of this tree against another checkout (VOLUME_BUSY_AB_BASE, built there
 * with `npm run build`): each seeds a store of its own with the same rows, made ready by its own
 * server (so each has its own migrations), and both serve at once; the summary is asked of one and
 * then of the other, call by call (which goes first alternates), so both meet the same load of the
 * machine. Printed, not written to docs/BENCHMARKS.md. Also a month (compareMonth).
 */
export interface BusyDayComparison {
  kind: StoreKind;
  size: number;
  names: [string, string];
  counted: [number, number];
  p50: [number, number];
  p99: [number, number];
  calls: number;
}

export async function compareBusyDay(
  kind: StoreKind,
  size: number,
  base: string,
  cfg: VolumeConfig,
  timing: Timing,
  cleanups: Cleanups,
  log: Log,
): Promise<BusyDayComparison> {
  const stores: BusyStore[] = [];
  try {
    for (const cwd of [base, ROOT]) stores.push(await prepareBusyStore(kind, size, cfg, cwd, cleanups, log));
    return await interleave(kind, size, stores as [BusyStore, BusyStore], timing, cleanups, log);
  } finally {
    for (const s of stores) await dropBusyStore(s, cleanups, log);
  }
}

/**
 * `size` transactions over the 30 days up to now (VOLUME_BUSY_AB_MONTH), made ready by the other
 * checkout's server and seeded once: too large to seed twice. SQLite's file is copied for this
 * tree, whose server migrates its copy when it starts; on PostgreSQL both serve the one schema,
 * which this tree's server migrates (what it adds, the other version neither reads nor writes).
 */
export async function compareMonth(
  kind: StoreKind,
  size: number,
  base: string,
  cfg: VolumeConfig,
  timing: Timing,
  cleanups: Cleanups,
  log: Log,
): Promise<BusyDayComparison> {
  const a = await prepareBusyStore(kind, size, cfg, base, cleanups, log, "month");
  let copy: string | undefined;
  try {
    let b: BusyStore = { ...a, cwd: ROOT };
    if (kind === "sqlite") {
      copy = `${a.vs.dataDir}-copy`;
      log(`${kind}: copying the store for this tree`);
      cpSync(a.vs.dataDir, copy, { recursive: true });
      b = { ...b, vs: { ...a.vs, dataDir: copy, env: { ...a.vs.env, PAYINTAKE_DATA_DIR: copy } } };
    }
    return await interleave(kind, size, [a, b], timing, cleanups, log);
  } finally {
    if (copy) rmSync(copy, { recursive: true, force: true });
    await dropBusyStore(a, cleanups, log);
  }
}

/** Both checkouts serve their stores at once; the summary is asked of one, then of the other. */
async function interleave(
  kind: StoreKind,
  size: number,
  [a, b]: [BusyStore, BusyStore],
  timing: Timing,
  cleanups: Cleanups,
  log: Log,
): Promise<BusyDayComparison> {
  const names: [string, string] = [
    `before (${shortCommit(a.cwd)})`,
    `this tree (${shortCommit(b.cwd)} + changes)`,
  ];
  return serving(a.vs, a.cwd, cleanups, (serverA) =>
    serving(b.vs, b.cwd, cleanups, async (serverB) => {
      const callers = [await summaryCaller(serverA, a.prov), await summaryCaller(serverB, b.prov)];
      const times: [number[], number[]] = [[], []];
      const once = async (side: 0 | 1, keep: boolean) => {
        const answer: Answer = await (callers[side] as { get: () => Promise<Answer> }).get();
        if (answer.status !== 200) throw new Error(`${names[side]}: the summary answered ${answer.status}`);
        if (keep) times[side].push(answer.ms);
      };
      for (let i = 0; i < timing.warmup + timing.calls; i++) {
        const first = (i % 2) as 0 | 1;
        await once(first, i >= timing.warmup);
        await once((1 - first) as 0 | 1, i >= timing.warmup);
      }
      const sorted = times.map((t) => [...t].sort((x, y) => x - y));
      const result: BusyDayComparison = {
        kind,
        size,
        names,
        counted: [callers[0]?.counted ?? 0, callers[1]?.counted ?? 0],
        p50: [percentile(sorted[0] ?? [], 0.5), percentile(sorted[1] ?? [], 0.5)],
        p99: [percentile(sorted[0] ?? [], 0.99), percentile(sorted[1] ?? [], 0.99)],
        calls: timing.calls,
      };
      log(`${kind}: ${size.toLocaleString("en-US")}, interleaved: ${comparisonLine(result)}`);
      return result;
    }),
  );
}

export function comparisonLine(c: BusyDayComparison): string {
  return c.names
    .map(
      (name, i) =>
        `${name}: p50 ${c.p50[i]?.toFixed(1)} ms, p99 ${c.p99[i]?.toFixed(1)} ms, counted ${c.counted[i]?.toLocaleString("en-US")}`,
    )
    .join("; ");
}
