/**
 * The service's clock on PostgreSQL: this machine's clock, corrected to the database server's.
 *
 * Instances sharing one database decide things by time on shared rows: who holds a callback's
 * lease and until when, when a retry is due, which deposits are old enough to cancel. Each reading
 * its own clock, two instances whose clocks differ by a lease (10 s) could both send one callback,
 * and one ahead by minutes would cancel deposits early. So every instance reads one clock, the
 * database server's: at start, and then every minute, it measures how far its own clock is from
 * the database's (best of three round trips, the database's reading taken as the midpoint) and
 * adds that difference to its own clock.
 *
 * Differences under a second are left alone: they change no outcome here (leases are ten seconds
 * and renewed every third of that, attempts ten seconds at most), and the measurement itself is only good to a round trip.
 */
export interface DatabaseClock {
  now(): number;
  /** How far this machine's clock was from the database's at the last sync (0 within the threshold). */
  offsetMs(): number;
  /** Measures once, then again every interval until stopped. */
  start(): Promise<void>;
  stop(): void;
}

export interface DatabaseClockDeps {
  /** This machine's clock. */
  base(): number;
  /** The database server's clock; undefined where there is no shared database. */
  databaseTime(): Promise<number | undefined>;
  log: { warn(obj: object, msg: string): void };
  /** A clock no one can step (performance.now by default). */
  monotonic?(): number;
  intervalMs?: number;
  thresholdMs?: number;
}

const SAMPLES = 3;

export function createDatabaseClock(deps: DatabaseClockDeps): DatabaseClock {
  const intervalMs = deps.intervalMs ?? 60_000;
  const monotonic = deps.monotonic ?? (() => performance.now());
  const thresholdMs = deps.thresholdMs ?? 1_000;
  let offset = 0;
  /**
   * While a correction applies, time runs from the database's reading at the last sync on the
   * monotonic clock, not from this machine's clock: when NTP later steps the machine's clock right,
   * adding the old correction to it would put this instance ahead until the next sync.
   */
  let anchor: { database: number; monotonic: number } | undefined;
  let timer: NodeJS.Timeout | undefined;

  /**
   * The database's clock minus ours, from the sample with the shortest round trip, and the
   * database's time at that sample's midpoint on the monotonic clock.
   */
  async function measure(): Promise<{ offset: number; database: number; monotonic: number } | undefined> {
    let best: { rtt: number; offset: number; database: number; monotonic: number } | undefined;
    for (let i = 0; i < SAMPLES; i++) {
      const before = deps.base();
      const m0 = monotonic();
      const theirs = await deps.databaseTime();
      const m1 = monotonic();
      const after = deps.base();
      if (theirs === undefined || !Number.isFinite(theirs)) return undefined;
      const rtt = m1 - m0;
      if (!best || rtt < best.rtt)
        best = { rtt, offset: theirs - (before + after) / 2, database: theirs, monotonic: (m0 + m1) / 2 };
    }
    return best;
  }

  async function sync(): Promise<boolean> {
    let measured: Awaited<ReturnType<typeof measure>>;
    try {
      measured = await measure();
    } catch (err) {
      // The database is unreachable for now: keep the last correction; requests fail on their own.
      deps.log.warn({ err }, "could not read the database's clock; keeping the last correction");
      return true;
    }
    if (measured === undefined) return false;
    const next = Math.abs(measured.offset) < thresholdMs ? 0 : Math.round(measured.offset);
    anchor = next === 0 ? undefined : { database: measured.database, monotonic: measured.monotonic };
    if (Math.abs(next - offset) >= thresholdMs) {
      deps.log.warn(
        { offsetMs: next },
        next === 0
          ? "this machine's clock agrees with the database's again"
          : "this machine's clock differs from the database's: using the database's time (check NTP on both)",
      );
    }
    offset = next;
    return true;
  }

  return {
    now: () => (anchor ? Math.round(anchor.database + (monotonic() - anchor.monotonic)) : deps.base()),
    offsetMs: () => offset,
    async start() {
      // No shared database (the embedded store): nothing to agree with, nothing to repeat.
      if (!(await sync())) return;
      timer = setInterval(() => void sync(), intervalMs);
      timer.unref();
    },
    stop() {
      if (timer) clearInterval(timer);
      timer = undefined;
    },
  };
}
