import type { Answer } from "../shared/timed-http.js";
import { MIN_CALLS } from "./config.js";

/**
 * One path timed at one size: a few warm-up calls, then calls one at a time, each with its own
 * parameters. Percentiles are nearest-rank over the measured calls: of 40 calls the p99 is the
 * slowest one.
 */
export type PathGroup = "merchant" | "console" | "admin" | "store";

export interface PathResult {
  name: string;
  group: PathGroup;
  calls: number;
  p50: number;
  p99: number;
  max: number;
  /** Answers by status ("error" for a call that got none); expected: 200 only. */
  statuses: Record<string, number>;
  /** The first unexpected answer, for the report. */
  failure?: string;
  /** Time to the first byte (the CSV export). */
  firstByte?: { p50: number; p99: number };
  /** Median bytes of an answer. */
  bytes: number;
  /** The server's peak RSS (VmHWM) once this path was done; HTTP paths only. */
  peakRssAfterBytes?: number;
  latencies: number[];
}

export interface Timing {
  warmup: number;
  calls: number;
  budgetMs: number;
}

/** Nearest rank: the smallest value at or above the share q of the values. */
export function percentile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] as number;
}

const sortedCopy = (values: readonly number[]) => [...values].sort((a, b) => a - b);

/** Runs `call(i)` for i = 0, 1, …: the first `warmup` are not counted. */
export async function measure(
  name: string,
  group: PathGroup,
  timing: Timing,
  call: (i: number) => Promise<Answer>,
): Promise<PathResult> {
  const statuses: Record<string, number> = {};
  const latencies: number[] = [];
  const firstBytes: number[] = [];
  const bytes: number[] = [];
  let failure: string | undefined;
  const attempt = async (i: number): Promise<Answer | undefined> => {
    try {
      return await call(i);
    } catch (err) {
      failure ??= `no answer: ${(err as Error).message}`;
      statuses.error = (statuses.error ?? 0) + 1;
      return undefined;
    }
  };
  // A path that takes seconds a call at this size is warm after one call, and its budget is for
  // the measured ones.
  const warming = performance.now();
  for (let i = 0; i < timing.warmup; i++) {
    if (i >= 1 && performance.now() - warming > timing.budgetMs / 10) break;
    await attempt(i);
  }
  const started = performance.now();
  for (let i = 0; i < timing.calls; i++) {
    if (i >= MIN_CALLS && performance.now() - started > timing.budgetMs) break;
    const answer = await attempt(timing.warmup + i);
    if (!answer) continue;
    statuses[answer.status] = (statuses[answer.status] ?? 0) + 1;
    if (answer.status !== 200) failure ??= `${answer.status}: ${answer.text.slice(0, 300)}`;
    latencies.push(answer.ms);
    firstBytes.push(answer.firstByteMs);
    bytes.push(answer.bytes);
  }
  return summarise(name, group, latencies, statuses, failure, firstBytes, bytes);
}

/** A store call (no HTTP): timed the same way, its answer's size not counted. */
export function measureStoreCall(
  name: string,
  timing: Timing,
  call: (i: number) => Promise<unknown>,
): Promise<PathResult> {
  return measure(name, "store", timing, async (i) => {
    const started = performance.now();
    await call(i);
    const ms = performance.now() - started;
    return { status: 200, ms, firstByteMs: ms, bytes: 0, text: "", headers: {} };
  });
}

function summarise(
  name: string,
  group: PathGroup,
  latencies: number[],
  statuses: Record<string, number>,
  failure: string | undefined,
  firstBytes: number[],
  bytes: number[],
): PathResult {
  const sorted = sortedCopy(latencies);
  const firstSorted = sortedCopy(firstBytes);
  return {
    name,
    group,
    calls: latencies.length,
    p50: percentile(sorted, 0.5),
    p99: percentile(sorted, 0.99),
    max: sorted[sorted.length - 1] ?? Number.NaN,
    statuses,
    ...(failure === undefined ? {} : { failure }),
    firstByte: { p50: percentile(firstSorted, 0.5), p99: percentile(firstSorted, 0.99) },
    bytes: percentile(sortedCopy(bytes), 0.5),
    latencies,
  };
}
