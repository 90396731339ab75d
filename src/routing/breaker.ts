/**
 * A circuit breaker per payment channel. Pure: the state is a value, time is passed in.
 *
 * closed    asks go through; opens after `consecutiveFailures` failures in a row, or when at least
 *           `minSamples` asks in the last `windowMs` failed at `failureRatio` or more.
 * open      asks are skipped without waiting, for `coolDownMs`.
 * half_open one probe ask goes through (the others are skipped); success closes, failure reopens.
 *
 * With background probes (`background`, when the channel client can send them): an open channel
 * is skipped by every ask, and once per cool-down a probe carrying no payer is sent beside the
 * deposits (`dueForProbe`, `probed`), so no payer waits for a channel that is still down. A channel
 * that answers probes with 4xx (a partner that does not know them) falls back to half_open, where
 * the next deposit is the probe, as without background probes.
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
   * so recording an ask costs the same at 1 ask a second as at 1,000 (a list of every ask, copied and
   * filtered on each, would cost more the busier the channel).
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
  background = false,
): { decision: "ask" | "probe" | "skip"; state: BreakerState } {
  if (state.mode === "closed") return { decision: "ask", state };
  if (state.mode === "open") {
    if (background || now - state.openedAt < cfg.coolDownMs) return { decision: "skip", state };
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
    // An ask sent before the breaker opened and failing after leaves a background probe in flight.
    const probing = state.mode === "open" && state.probing;
    return failed
      ? { mode: "open", consecutive: state.consecutive + 1, recent, openedAt: now, probing }
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

/**
 * What a background probe found: `up` (answered 200), `down` (no answer in time, refused, 5xx) or
 * `unsure` (answered 4xx: the partner is there but does not know probes).
 */
export type ProbeResult = "up" | "down" | "unsure";

/** Whether an open breaker's channel is due a background probe now. */
export function dueForProbe(state: BreakerState, now: number, cfg: BreakerConfig): boolean {
  return state.mode === "open" && !state.probing && now - state.openedAt >= cfg.coolDownMs;
}

export const probeStarted = (state: BreakerState): BreakerState => ({ ...state, probing: true });

/**
 * A background probe's result: `up` closes the breaker, `down` opens it for another cool-down,
 * `unsure` lets the next deposit's ask be the probe (half_open). A breaker that a late ask closed
 * meanwhile is left closed.
 */
export function probed(state: BreakerState, result: ProbeResult, now: number): BreakerState {
  if (state.mode !== "open" || !state.probing) return state;
  if (result === "up") return closedBreaker();
  if (result === "down") return { ...state, openedAt: now, probing: false };
  return { ...state, mode: "half_open", probing: false };
}

/**
 * Another instance's breaker opened for this channel (on one PostgreSQL): a closed breaker opens
 * too, so this instance's payers do not each wait for the channel's timeout to learn it; its own
 * probe closes it again. A breaker already open or probing is left as it is. Closings are not
 * shared: a channel that one instance cannot reach and another can stays usable by the other.
 */
export function heardOpen(state: BreakerState, now: number): BreakerState {
  return state.mode === "closed" ? { ...state, mode: "open", openedAt: now, probing: false } : state;
}
