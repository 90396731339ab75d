/**
 * The minute's clean-up of rows nothing needs any more, each in batches: after a long stop, or on a
 * store an older version left unpurged, millions may be due, and one statement for all of them
 * would hold its table (SQLite: every write) for as long as it ran. A batch of BATCH rows is a few
 * milliseconds; at most MAX_BATCHES of each kind run in one minute, and the next minute goes on.
 */
import type { Logger } from "pino";
import type { Repositories } from "../store/index.js";

const BATCH = 5_000;
const MAX_BATCHES = 20;
const DAY_MS = 86_400_000;
/** A payment page's link answers "expired" this long after the page ended, then 404. */
export const PAYMENT_PAGE_KEPT_MS = 90 * DAY_MS;

export interface Purge {
  name: string;
  /** Deletes or scrubs up to `limit` rows; says how many. */
  run(limit: number): Promise<number>;
}

/** `stopping()` true ends the run between two batches (the server is closing the store). */
export async function runPurges(
  purges: readonly Purge[],
  logger: Logger,
  stopping: () => boolean = () => false,
): Promise<void> {
  for (const purge of purges) {
    try {
      let batches = 0;
      let done = BATCH;
      while (done === BATCH && batches < MAX_BATCHES && !stopping()) {
        done = await purge.run(BATCH);
        batches += 1;
      }
    } catch (err) {
      logger.error({ err }, `${purge.name} failed`);
    }
  }
}

/** The payment pages' purges (docs/hosted-page.md): details a day after the end, the row later. */
export function paymentPagePurges(
  sessions: {
    scrubEnded(before: number, limit: number): Promise<number>;
    purgeEnded(before: number, limit: number): Promise<number>;
  },
  now: () => number,
): Purge[] {
  return [
    { name: "payment page scrub", run: (limit) => sessions.scrubEnded(now() - DAY_MS, limit) },
    { name: "payment page purge", run: (limit) => sessions.purgeEnded(now() - PAYMENT_PAGE_KEPT_MS, limit) },
  ];
}

/**
 * What the minute's run purges: nonces past their window, then the payment pages' rows; and on
 * PostgreSQL the summary's deltas, folded into the hours' buckets (store/transactions/summary-hours.ts),
 * so that the summary reads one minute's changes at most besides the buckets.
 */
export function minutePurges(
  repos: Pick<Repositories, "nonces" | "sessions" | "summaryFigures">,
  now: () => number,
): Purge[] {
  return [
    { name: "nonce purge", run: (limit) => repos.nonces.purgeExpired(now(), limit) },
    ...paymentPagePurges(repos.sessions, now),
    { name: "summary hours fold", run: (limit) => repos.summaryFigures.foldHours(limit) },
  ];
}
