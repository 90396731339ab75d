import { type AccountCandidate, pickAccount, rotationStamp } from "./routing.js";

/**
 * The payment accounts deposits are routed to, held in memory, and the rotation between them.
 *
 * Every deposit needs the pool; reading it from the database each time, and writing the rotation
 * back to one of a handful of rows, made those rows the hottest in the database (on PostgreSQL every
 * deposit waited for the row lock of its account until the previous deposit's commit). So the pool
 * is cached for a short time (and dropped at once when this instance changes an account), and the
 * rotation lives in memory: each instance rotates fairly over the accounts it sees. With several
 * instances each one rotates on its own, which still spreads deposits evenly (docs/decisions.md).
 */
export interface AccountPool {
  /** Picks the eligible account assigned least recently, and moves it to the back of the rotation. */
  assign(amountMinor: number): Promise<AccountCandidate | null>;
  /** Forgets the cached pool; the next deposit reads it again. */
  invalidate(): void;
}

export interface AccountPoolOptions {
  /** Active accounts, as stored. */
  load(): Promise<Omit<AccountCandidate, "lastAssignedAt">[]>;
  /** The business clock, for rotation stamps. */
  now(): number;
  /** How long a read of the pool is used; a change made through another instance shows after it. */
  ttlMs: number;
  /** Monotonic time for the cache; defaults to performance.now. */
  monotonic?: () => number;
}

export function createAccountPool(opts: AccountPoolOptions): AccountPool {
  const monotonic = opts.monotonic ?? (() => performance.now());
  let cached: AccountCandidate[] | undefined;
  let loadedAt = 0;
  let loading: Promise<AccountCandidate[]> | undefined;
  let generation = 0;

  async function reload(): Promise<AccountCandidate[]> {
    const started = generation;
    const rows = await opts.load();
    // Stamps survive a reload, so the rotation carries on where it was.
    const stamps = new Map((cached ?? []).map((a) => [a.id, a.lastAssignedAt]));
    const fresh = rows.map((a) => ({ ...a, lastAssignedAt: stamps.get(a.id) ?? 0 }));
    // An invalidation while this read was under way may have made it stale: use it once, keep nothing.
    if (started === generation) {
      cached = fresh;
      loadedAt = monotonic();
    }
    return fresh;
  }

  async function current(): Promise<AccountCandidate[]> {
    if (cached !== undefined && monotonic() - loadedAt < opts.ttlMs) return cached;
    loading ??= reload().finally(() => {
      loading = undefined;
    });
    return loading;
  }

  return {
    async assign(amountMinor) {
      const accounts = await current();
      const picked = pickAccount(accounts, amountMinor);
      if (picked !== null) picked.lastAssignedAt = rotationStamp(accounts, opts.now());
      return picked;
    },
    invalidate() {
      generation += 1;
      loadedAt = Number.NEGATIVE_INFINITY;
      loading = undefined;
    },
  };
}
