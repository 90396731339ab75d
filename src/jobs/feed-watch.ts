import { feedSilent } from "../domain/statement-lines.js";
import type { FeedRepository } from "../store/statements/statement-feeds.js";

/**
 * Warns in the log, once each time, when a statement feed falls silent longer than its account
 * allows, and says when it speaks again: until then deposits into that account wait for a person.
 * The console shows the same from the store (the dashboard's `statements.silent_feeds`).
 */
export interface FeedWatch {
  start(): void;
  /** One look at every feed; resolves with the accounts silent now. */
  runOnce(): Promise<number[]>;
  stop(): void;
}

export function createFeedWatch(deps: {
  feeds: FeedRepository;
  now(): number;
  intervalMs: number;
  log: { warn(obj: object, msg: string): void; info(obj: object, msg: string): void };
}): FeedWatch {
  let timer: NodeJS.Timeout | undefined;
  const silent = new Set<number>();

  async function runOnce(): Promise<number[]> {
    const now = deps.now();
    const seen = new Set<number>();
    for (const feed of await deps.feeds.list()) {
      seen.add(feed.account_id);
      const quiet = feedSilent(feed, now);
      if (quiet && !silent.has(feed.account_id)) {
        silent.add(feed.account_id);
        deps.log.warn(
          {
            account_id: feed.account_id,
            last_at: feed.last_at === null ? null : new Date(feed.last_at).toISOString(),
          },
          "statement feed silent: its account's deposits wait for an operator",
        );
      } else if (!quiet && silent.delete(feed.account_id)) {
        deps.log.info({ account_id: feed.account_id }, "statement feed speaks again");
      }
    }
    for (const id of silent) if (!seen.has(id)) silent.delete(id);
    return [...silent];
  }

  return {
    start() {
      timer = setInterval(() => {
        runOnce().catch((err) => deps.log.warn({ err }, "statement feeds not checked"));
      }, deps.intervalMs);
      timer.unref();
    },
    runOnce,
    stop() {
      if (timer) clearInterval(timer);
    },
  };
}
