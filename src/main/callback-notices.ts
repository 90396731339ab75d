/**
 * Callbacks queued on one instance are looked for at once by every worker on the same PostgreSQL:
 * a decision taken on an `api` instance (or on any instance beside other workers) is told through
 * the database's change feed, and each worker claims at once instead of at its next poll (up to
 * PAYINTAKE_CALLBACK_POLL_MS later). Queued callbacks are gathered for a few milliseconds and told
 * once: a burst of decisions becomes a few notices, and each notice costs a worker one claim. The
 * embedded store has one process: its worker is poked directly, as before.
 */
import type { OutboxWorker } from "../callbacks/worker.js";
import type { ChangeFeed } from "../store/engine/change-feed.js";

/** Long enough to gather a burst of decisions, short beside a callback's usual delivery. */
export const CALLBACK_NOTICE_GATHER_MS = 20;

/**
 * The outbox as the parts that queue callbacks see it: `poke()` pokes this instance's worker and
 * tells the others; a notice heard from the feed pokes this worker.
 */
export function sharedOutbox(
  outbox: OutboxWorker,
  feed: Pick<ChangeFeed, "announce" | "onChange"> | undefined,
  onError: (err: unknown) => void,
): OutboxWorker {
  if (!feed) return outbox;
  let gathering: NodeJS.Timeout | undefined;
  feed.onChange((topic) => {
    if (topic === "callbacks" || topic === "all") outbox.poke();
  });
  return {
    start: () => outbox.start(),
    stop: () => outbox.stop(),
    receivers: () => outbox.receivers(),
    poke() {
      outbox.poke();
      if (gathering) return;
      gathering = setTimeout(() => {
        gathering = undefined;
        feed.announce("callbacks").catch(onError);
      }, CALLBACK_NOTICE_GATHER_MS);
      gathering.unref();
    },
  };
}
