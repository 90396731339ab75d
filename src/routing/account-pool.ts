/**
 * The payment accounts (and their channels) deposits are routed to, held in memory, and the
 * rotation between them.
 *
 * Every deposit needs the pool; reading it from the database each time, and writing the rotation
 * back to one of a handful of rows, would make those rows the hottest in the database (on PostgreSQL
 * every deposit would wait for the row lock of its account until the previous deposit's commit). So the pool
 * is cached for a short time (and dropped at once when this instance changes an account or a
 * channel), and the rotation lives in memory: each instance rotates fairly over the accounts it
 * sees. With several instances each one rotates on its own, which still spreads deposits evenly
 * (docs/decisions.md).
 */
import {
  type AccountCandidate,
  type ChannelInfo,
  pickAccount,
  rotationStamp,
  routeOrder,
} from "./account-order.js";

export interface RoutingPlan {
  /** Eligible accounts in the order to try them (routing/account-order.ts routeOrder). */
  order: AccountCandidate[];
  channels: ReadonlyMap<number, ChannelInfo>;
  /** The live firms, which share every account's daily cap (domain/cap-share.ts). */
  liveFirms: ReadonlySet<number>;
}

export interface AccountPool {
  /**
   * The routing order for one deposit. The caller moves the account it tries first to the back of
   * the rotation (markAssigned) before it waits for anything, so deposits arriving together spread
   * over the accounts instead of all trying the same one.
   */
  plan(amountMinor: number, bankCode: string): Promise<RoutingPlan>;
  /** Moves an account to the back of the rotation. */
  markAssigned(accountId: number): void;
  /** Picks the first eligible account and moves it to the back: routing without channels. */
  assign(amountMinor: number): Promise<AccountCandidate | null>;
  /** Forgets the cached pool; the next deposit reads it again. */
  invalidate(): void;
}

export interface PoolContents {
  accounts: Omit<AccountCandidate, "lastAssignedAt">[];
  channels: ChannelInfo[];
  /** The firms whose deposits route to these accounts (store/firms/firms.ts liveIds). */
  liveFirms: readonly number[];
}

export interface AccountPoolOptions {
  /** Active accounts and channels, and the live firms, as stored. */
  load(): Promise<PoolContents>;
  /** The business clock, for rotation stamps. */
  now(): number;
  /** How long a read of the pool is used; a change made through another instance shows after it. */
  ttlMs: number;
  /** Monotonic time for the cache; defaults to performance.now. */
  monotonic?: () => number;
}

interface Snapshot {
  accounts: AccountCandidate[];
  channels: Map<number, ChannelInfo>;
  liveFirms: Set<number>;
}

export function createAccountPool(opts: AccountPoolOptions): AccountPool {
  const monotonic = opts.monotonic ?? (() => performance.now());
  let cached: Snapshot | undefined;
  let loadedAt = 0;
  let loading: Promise<Snapshot> | undefined;
  let generation = 0;

  async function reload(): Promise<Snapshot> {
    const started = generation;
    const contents = await opts.load();
    // Stamps survive a reload, so the rotation carries on where it was.
    const stamps = new Map((cached?.accounts ?? []).map((a) => [a.id, a.lastAssignedAt]));
    const fresh: Snapshot = {
      accounts: contents.accounts.map((a) => ({ ...a, lastAssignedAt: stamps.get(a.id) ?? 0 })),
      channels: new Map(contents.channels.map((c) => [c.id, c])),
      liveFirms: new Set(contents.liveFirms),
    };
    // An invalidation while this read was under way may have made it stale: use it once, keep nothing.
    if (started === generation) {
      cached = fresh;
      loadedAt = monotonic();
    }
    return fresh;
  }

  async function current(): Promise<Snapshot> {
    if (cached !== undefined && monotonic() - loadedAt < opts.ttlMs) return cached;
    loading ??= reload().finally(() => {
      loading = undefined;
    });
    return loading;
  }

  function stamp(snapshot: Snapshot, account: AccountCandidate): void {
    account.lastAssignedAt = rotationStamp(snapshot.accounts, opts.now());
  }

  return {
    async plan(amountMinor, bankCode) {
      const snapshot = await current();
      return {
        order: routeOrder(snapshot.accounts, amountMinor, bankCode),
        channels: snapshot.channels,
        liveFirms: snapshot.liveFirms,
      };
    },
    markAssigned(accountId) {
      const snapshot = cached;
      const account = snapshot?.accounts.find((a) => a.id === accountId);
      if (snapshot && account) stamp(snapshot, account);
    },
    async assign(amountMinor) {
      const snapshot = await current();
      const picked = pickAccount(snapshot.accounts, amountMinor);
      if (picked !== null) stamp(snapshot, picked);
      return picked;
    },
    invalidate() {
      generation += 1;
      loadedAt = Number.NEGATIVE_INFINITY;
      loading = undefined;
    },
  };
}
