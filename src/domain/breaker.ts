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

export interface BreakerState {
  mode: BreakerMode;
  consecutive: number;
  /** Recent asks: time and whether they failed, oldest first, within the window. */
  recent: { at: number; failed: boolean }[];
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

export function record(state: BreakerState, failed: boolean, now: number, cfg: BreakerConfig): BreakerState {
  const recent = [...state.recent.filter((r) => now - r.at < cfg.windowMs), { at: now, failed }];
  if (state.mode !== "closed") {
    return failed
      ? { mode: "open", consecutive: state.consecutive + 1, recent, openedAt: now, probing: false }
      : { ...closedBreaker(), recent: [] };
  }
  const consecutive = failed ? state.consecutive + 1 : 0;
  const failures = recent.filter((r) => r.failed).length;
  const tripped =
    consecutive >= cfg.consecutiveFailures ||
    (recent.length >= cfg.minSamples && failures / recent.length >= cfg.failureRatio);
  return tripped
    ? { mode: "open", consecutive, recent, openedAt: now, probing: false }
    : { ...state, consecutive, recent };
}
