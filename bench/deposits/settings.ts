import type { StoreKind } from "../shared/payintake.js";

/** `npm run bench`'s settings, read from the environment once (bench/README.md lists them). */
export const CONNECTIONS = 50;
export const SECONDS = positive(process.env.BENCH_SECONDS, 10);
export const WARMUP_SECONDS = positive(process.env.BENCH_WARMUP_SECONDS, 2);
/**
 * Rounds of bare, SQLite and PostgreSQL, one after the other. This machine's speed drifts by a third
 * within minutes (the bare endpoint measured 8,000 to 18,500 requests/s in one hour), so one bare
 * measurement a minute before a store's says more about the drift than about the store: each ratio
 * is taken within its round, and the targets are held to the median of those ratios and to the
 * worst round's p99.
 */
export const ROUNDS = Math.max(1, Math.round(positive(process.env.BENCH_ROUNDS, 3)));
export const QUIET_WAIT_SECONDS = positive(process.env.BENCH_QUIET_WAIT_SECONDS, 15);
export const CALLBACKS = !["0", "false", "no"].includes(process.env.BENCH_CALLBACKS ?? "");
export const PROFILE = ["1", "true", "yes"].includes(process.env.BENCH_CPU_PROF ?? "");
/**
 * One receiver at 50 callbacks/s for 60 s (BENCH_CALLBACK_SECONDS), healthy and with 2 % of first
 * attempts hanging; the 2 % target is on the callbacks that did not hang. A killed worker's
 * callbacks must arrive within 15 s (PostgreSQL).
 */
export const STEADY = {
  rate: 50,
  seconds: positive(process.env.BENCH_CALLBACK_SECONDS, 60),
  hangShare: 0.02,
};
/**
 * BENCH_ONLY=mixed runs the sustained mixed workload alone (it takes minutes); BENCH_ONLY=callbacks
 * the callbacks section alone.
 */
export const ONLY = process.env.BENCH_ONLY;
export const MIXED_SECONDS = positive(process.env.BENCH_MIXED_SECONDS, 120);
export const STORES = (process.env.BENCH_STORES ?? "sqlite,postgres")
  .split(",")
  .map((s) => s.trim())
  .filter((s): s is StoreKind => s === "sqlite" || s === "postgres");

export function positive(value: string | undefined, fallback: number): number {
  if (value === undefined || value === "") return fallback;
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0) throw new Error(`expected a non-negative number, got "${value}"`);
  return n;
}
