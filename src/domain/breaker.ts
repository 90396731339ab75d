/**
 * A circuit breaker per payment channel. Pure: the state is a value, time is passed in.
 *
 * closed    asks go through; opens after `consecutiveFailures` failures in a row, or when at least
 *           `minSamples` asks in the last `windowMs` failed at `failureRatio` or more.
 * open      asks are skipped without waiting, for `coolDownMs`.
 * half_open one probe ask goes through (the others are skipped); success closes, failure reopens.
 *
 * Only channel-wide failures count (timeout, refused, 5xx, malformed answer). A decline is an
 * answer about one payer: the channel is healthy.
 */
export interface BreakerConfig {
  consecutiveFailures: number;
  failureRatio: number;
  minSamples: number;
  windowMs: number;
  coolDownMs: number;
}

export const DEFAULT_BREAKER: BreakerConfig = {
  consecutiveFailures: 3,
  failureRatio: 0.5,
  minSamples: 10,
  windowMs: 30_000,
  coolDownMs: 10_000,
};

export type BreakerMode = "closed" | "open" | "half_open";

/** Asks and failures counted in one second of the window. */
export interface BreakerBucket {
  second: number;
  asks: number;
  failures: number;
}

export interface BreakerState {
  mode: BreakerMode;
  consecutive: number;
  /**
   * The window's asks, counted per second, oldest first: at most one entry per second of the window,
   * so recording an ask costs the same at 1 ask a second as at 1,000 (a list of every ask was
   * copied and filtered on each, 1.5 ms at 1,000 asks a second).
   */
  recent: BreakerBucket[];
  openedAt: number;
  probing: boolean;
}

export const closedBreaker = (): BreakerState => ({
  mode: "closed",
  consecutive: 0,
  recent: [],
  openedAt: 0,
  probing: false,
});

/** What to do with the next ask: send it, send it as the one probe, or skip the channel. */
export function admit(
  state: BreakerState,
  now: number,
  cfg: BreakerConfig,
): { decision: "ask" | "probe" | "skip"; state: BreakerState } {
  if (state.mode === "closed") return { decision: "ask", state };
  if (state.mode === "open") {
    if (now - state.openedAt < cfg.coolDownMs) return { decision: "skip", state };
    return { decision: "probe", state: { ...state, mode: "half_open", probing: true } };
  }
  if (state.probing) return { decision: "skip", state };
  return { decision: "probe", state: { ...state, probing: true } };
}

/** The window's buckets with this ask counted (a new array: states are values). */
function counted(
  recent: readonly BreakerBucket[],
  failed: boolean,
  now: number,
  windowMs: number,
): BreakerBucket[] {
  const second = Math.floor(now / 1000);
  const oldest = Math.floor((now - windowMs) / 1000);
  const kept = recent.filter((b) => b.second > oldest && b.second !== second);
  const current = recent.find((b) => b.second === second);
  kept.push({
    second,
    asks: (current?.asks ?? 0) + 1,
    failures: (current?.failures ?? 0) + (failed ? 1 : 0),
  });
  return kept;
}

export function record(state: BreakerState, failed: boolean, now: number, cfg: BreakerConfig): BreakerState {
  const recent = counted(state.recent, failed, now, cfg.windowMs);
  if (state.mode !== "closed") {
    return failed
      ? { mode: "open", consecutive: state.consecutive + 1, recent, openedAt: now, probing: false }
      : { ...closedBreaker(), recent: [] };
  }
  const consecutive = failed ? state.consecutive + 1 : 0;
  let asks = 0;
  let failures = 0;
  for (const b of recent) {
    asks += b.asks;
    failures += b.failures;
  }
  const tripped =
    consecutive >= cfg.consecutiveFailures || (asks >= cfg.minSamples && failures / asks >= cfg.failureRatio);
  return tripped
    ? { mode: "open", consecutive, recent, openedAt: now, probing: false }
    : { ...state, consecutive, recent };
}
