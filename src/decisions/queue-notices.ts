/**
 * Tells the open consoles that the pending queues changed (a transaction came in, or one was
 * decided or auto-cancelled), so each shows it within a fraction of a second instead of at its
 * next poll. A notice says only that something changed: each console then asks for its queue
 * again, through the routes that check its session and role, so a notice carries nothing an
 * operator could not already read.
 *
 * Changes are gathered for `delayMs` and told once: under load thousands of deposits a second
 * become a few notices a second, and the deposit itself only sets a flag. With several instances
 * on one PostgreSQL (`share`), the notice goes through the database (store/engine/change-feed.ts) and
 * comes back to every instance, this one included, which then tells its own consoles (`heard`).
 */
export interface QueueNotices {
  /** The pending queues changed here. */
  changed(): void;
  /** The pending queues changed, as another instance (or the database's feed) says. */
  heard(): void;
  /** Calls `listener` on each notice until the returned function is called. */
  subscribe(listener: () => void): () => void;
  /** Consoles listening on this instance. */
  readonly listeners: number;
  /** Drops a notice not yet told, and tells nothing more (the server is stopping). */
  stop(): void;
}

/** Long enough to gather a burst, short enough that an operator sees a new row at once. */
export const QUEUE_NOTICE_DELAY_MS = 250;

export function createQueueNotices(
  opts: { share?: () => void; delayMs?: number; onError?: (err: unknown) => void } = {},
): QueueNotices {
  const listeners = new Set<() => void>();
  const delayMs = opts.delayMs ?? QUEUE_NOTICE_DELAY_MS;
  let gathering: NodeJS.Timeout | undefined;
  let holding: NodeJS.Timeout | undefined;
  let lastTold = 0;
  let stopped = false;

  const tellListeners = () => {
    lastTold = performance.now();
    for (const listener of listeners) {
      try {
        listener();
      } catch (err) {
        // One console's broken stream must not keep the others from hearing.
        opts.onError?.(err);
      }
    }
  };
  // Every instance sends its own notices: what reaches the consoles is gathered again, so they
  // hear at most one every `delayMs` however many instances take deposits.
  const heard = () => {
    if (stopped || holding) return;
    // A monotonic clock, and never more than one gathering's wait.
    const wait = Math.min(delayMs, lastTold + delayMs - performance.now());
    if (wait <= 0) return tellListeners();
    holding = setTimeout(() => {
      holding = undefined;
      tellListeners();
    }, wait);
    holding.unref();
  };

  return {
    changed() {
      if (stopped || gathering) return;
      gathering = setTimeout(() => {
        gathering = undefined;
        if (stopped) return;
        if (opts.share) opts.share();
        else heard();
      }, delayMs);
      gathering.unref();
    },
    heard,
    subscribe(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    get listeners() {
      return listeners.size;
    },
    stop() {
      stopped = true;
      clearTimeout(gathering);
      clearTimeout(holding);
    },
  };
}
