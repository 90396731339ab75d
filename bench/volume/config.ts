import type { StoreKind } from "../shared/payintake.js";

/**
 * What `npm run bench:volume` measures, read from the environment once (bench/volume/run.ts says how
 * to run it). Sizes are transactions in the store; each store grows through them in turn, and the
 * empty store (size 0) is always measured first, as the merchant paths' baseline.
 */
export interface VolumeConfig {
  sizes: number[];
  stores: StoreKind[];
  /** Measured calls per path and size, one at a time, after `warmup` calls. */
  calls: number;
  warmup: number;
  /** A path stops early once its measured calls took this long (at least MIN_CALLS are made). */
  pathBudgetMs: number;
  /** Transactions per day: the store's history is its size at this rate, ending now. */
  perDay: number;
  /** Pending transactions among the newest rows (the queues), besides a few stuck withdrawals. */
  pending: number;
  /** The generator's seed: the same seed and sizes give the same rows. */
  seed: number;
  /** From this size on, the volume migrations' index builds are timed too (0: never). */
  buildsFrom: number;
  /** Busy days (busy-day.ts): transactions made in today's Türkiye day, one fresh store each; none: skipped. */
  busyDays: number[];
  /** Pending transactions among a busy day's. */
  busyPending: number;
  /** With VOLUME_BUSY_AB_BASE: a month of this many transactions compared too (0: none). */
  busyMonth: number;
  /** What runs: the growing store's sizes, the busy days, or both. */
  only: "sizes" | "busy-day" | undefined;
}

/** The fewest measured calls a path gets before its time budget may stop it. */
export const MIN_CALLS = 5;

export function volumeConfig(env: NodeJS.ProcessEnv = process.env): VolumeConfig {
  const sizes = [
    ...new Set(
      (env.VOLUME_SIZES ?? "100000,1000000")
        .split(",")
        .map((s) => s.trim().replaceAll("_", ""))
        .filter((s) => s !== "")
        .map((s) => whole(s, "VOLUME_SIZES")),
    ),
  ]
    .filter((n) => n > 0)
    .sort((a, b) => a - b);
  const busyDays = (env.VOLUME_BUSY_DAY ?? "200000")
    .split(",")
    .map((s) => s.trim().replaceAll("_", ""))
    .filter((s) => s !== "")
    .map((s) => whole(s, "VOLUME_BUSY_DAY"))
    .filter((n) => n > 0);
  const only = env.VOLUME_ONLY;
  if (only !== undefined && only !== "sizes" && only !== "busy-day")
    throw new Error(`VOLUME_ONLY: sizes or busy-day, not "${only}"`);
  const stores = (env.VOLUME_STORES ?? "sqlite,postgres")
    .split(",")
    .map((s) => s.trim())
    .filter((s): s is StoreKind => s === "sqlite" || s === "postgres");
  if (sizes.length === 0)
    throw new Error("VOLUME_SIZES: give at least one size above 0, e.g. 100000,1000000");
  if (stores.length === 0) throw new Error("VOLUME_STORES: sqlite, postgres or both");
  return {
    sizes,
    stores,
    calls: Math.max(MIN_CALLS, whole(env.VOLUME_CALLS ?? "40", "VOLUME_CALLS")),
    warmup: whole(env.VOLUME_WARMUP ?? "3", "VOLUME_WARMUP"),
    pathBudgetMs: whole(env.VOLUME_PATH_BUDGET_S ?? "120", "VOLUME_PATH_BUDGET_S") * 1000,
    perDay: Math.max(100, whole(env.VOLUME_PER_DAY ?? "20000", "VOLUME_PER_DAY")),
    pending: whole(env.VOLUME_PENDING ?? "3000", "VOLUME_PENDING"),
    seed: whole(env.VOLUME_SEED ?? "33", "VOLUME_SEED"),
    buildsFrom: whole(env.VOLUME_BUILDS_FROM ?? "1000000", "VOLUME_BUILDS_FROM"),
    busyDays,
    busyPending: whole(env.VOLUME_BUSY_PENDING ?? "10000", "VOLUME_BUSY_PENDING"),
    busyMonth: whole(env.VOLUME_BUSY_AB_MONTH ?? "0", "VOLUME_BUSY_AB_MONTH"),
    only,
  };
}

function whole(text: string, name: string): number {
  const n = Number(text);
  if (!Number.isSafeInteger(n) || n < 0) throw new Error(`${name}: expected a whole number, got "${text}"`);
  return n;
}

/** 100000 → "100k", 1000000 → "1M": how sizes are named in the report. */
export function sizeLabel(size: number): string {
  if (size === 0) return "empty";
  if (size >= 1_000_000 && size % 100_000 === 0) return `${size / 1_000_000}M`;
  if (size >= 1_000 && size % 100 === 0) return `${size / 1_000}k`;
  return size.toLocaleString("en-US");
}
