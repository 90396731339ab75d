/**
 * The deposits a run of statement lines may pay, loaded a window at a time around the line being
 * matched, never for the whole span a batch names: a batch whose lines lie a year apart reads the
 * deposits around each line, not every deposit in between. A window holds at most `ceiling`
 * deposits; a line whose own reach holds more is matched against those read, and says so
 * (`complete: false`), so that it can only be suggested (docs/reconciliation.md, "Limits").
 */
import type { CandidateRow } from "../store/statements/statement-lines.js";
import type { StatementLine } from "./statement.js";

/** How far back a credit looks for its deposit: a payment a day late is an operator's to place. */
export const LOOKBACK_MS = 24 * 3_600_000;
export const CLOCK_TOLERANCE_MS = 2 * 60_000;
const DAY_MS = 86_400_000;
/** The most deposits one window holds: about 1.5 KB each once read. */
export const POOL_CEILING = 20_000;
/** The longest stretch one load covers: lines in order of booking take one load per few days. */
const WINDOW_MS = 3 * DAY_MS;

/** The creation times of the deposits a line may pay. */
export function reachOf(line: StatementLine): { from: number; to: number } {
  return {
    from: line.bookedAt - LOOKBACK_MS,
    to: line.bookedAt + (line.dateOnly ? DAY_MS : 0) + CLOCK_TOLERANCE_MS,
  };
}

export interface PoolSource<P> {
  /** The first `limit` deposits made within [from, to], in order of creation. */
  load(from: number, to: number, limit: number): Promise<CandidateRow[]>;
  toCandidate(row: CandidateRow): P;
}

export interface PoolWindow<P> {
  /** The window's deposits within the line's reach, in order of creation. */
  candidates: P[];
  /** False when the line's reach holds more deposits than a window may. */
  complete: boolean;
}

interface Loaded<P> {
  from: number;
  /** The latest creation time whose deposits are all read. */
  coveredTo: number;
  pool: P[];
  /**
   * When the window is full: the creation time of its middle deposit. A line that starts past it
   * reads a new window; one before it makes do with this one (a crowded stretch reads a window per
   * half a ceiling of deposits, not one per line).
   */
  fullPast: number | null;
}

/** `lastBooked`: the latest booking of the run, so that an ordered run needs few loads. */
export function candidatePool<P extends { createdAt: number }>(
  source: PoolSource<P>,
  lastBooked: number | null,
  ceiling = POOL_CEILING,
) {
  let loaded: Loaded<P> | undefined;

  /**
   * A window from the line's reach onwards; or, for a line earlier than the window read (a bank
   * that lists its newest entries first), one that ends with the line's reach, so that the lines
   * before it in time are covered too. A window that ends with the reach and is full holds the
   * earliest deposits of its stretch, perhaps none of the reach: the reach onwards is read instead.
   */
  async function load(reach: { from: number; to: number }, backwards: boolean): Promise<Loaded<P>> {
    if (backwards) {
      const before = await read(Math.min(reach.from, reach.to - WINDOW_MS), reach.to);
      if (before.fullPast === null) return before;
    }
    const end = lastBooked === null ? reach.to : Math.max(reach.to, lastBooked + DAY_MS + CLOCK_TOLERANCE_MS);
    return read(reach.from, Math.max(reach.to, Math.min(end, reach.from + WINDOW_MS)));
  }

  async function read(from: number, to: number): Promise<Loaded<P>> {
    const rows = await source.load(from, to, ceiling + 1);
    if (rows.length <= ceiling)
      return { from, coveredTo: to, pool: rows.map(source.toCandidate), fullPast: null };
    // Full: the deposits made at the last time read may not all be there; they are left out.
    const lastAt = (rows[ceiling - 1] as CandidateRow).created_at;
    const kept = rows.slice(0, ceiling).filter((r) => r.created_at < lastAt);
    return {
      from,
      coveredTo: Math.max(lastAt - 1, from),
      pool: kept.map(source.toCandidate),
      fullPast: (rows[Math.floor(ceiling / 2)] as CandidateRow).created_at,
    };
  }

  return {
    async around(line: StatementLine): Promise<PoolWindow<P>> {
      const reach = reachOf(line);
      if (!loaded || stale(loaded, reach))
        loaded = await load(reach, loaded !== undefined && reach.from < loaded.from);
      return { candidates: within(loaded.pool, reach), complete: reach.to <= loaded.coveredTo };
    },
    /** The deposits read so far, for the caller's look-ups by id. */
    get current(): readonly P[] {
      return loaded?.pool ?? [];
    },
  };
}

/** Whether a line's reach needs another window than the one read. */
function stale(loaded: Loaded<unknown>, reach: { from: number; to: number }): boolean {
  if (reach.from < loaded.from) return true;
  return loaded.fullPast === null ? reach.to > loaded.coveredTo : reach.from > loaded.fullPast;
}

/** The pooled deposits made within [from, to] (the pool is in order of creation). */
function within<P extends { createdAt: number }>(
  pool: readonly P[],
  reach: { from: number; to: number },
): P[] {
  let lo = 0;
  let hi = pool.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((pool[mid] as P).createdAt < reach.from) lo = mid + 1;
    else hi = mid;
  }
  const out: P[] = [];
  for (let i = lo; i < pool.length && (pool[i] as P).createdAt <= reach.to; i++) out.push(pool[i] as P);
  return out;
}
