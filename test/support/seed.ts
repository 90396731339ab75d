/**
 * The reliability suite's knobs: a seed to replay a run (printed by each test), and how many
 * kills the kill -9 scenario makes (the 30 by default).
 */
export const SEED = Number(process.env.RELIABILITY_SEED ?? 20261123);
export const KILLS = Number(process.env.RELIABILITY_KILLS ?? 30);

/** mulberry32: a small, well-known seeded generator; good enough to pick moments. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
