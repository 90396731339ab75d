/**
 * The actor of every decision a bank statement's line makes by itself (the audit log's, the
 * transaction's `decided_by`): the dashboard counts the deposits it approved.
 */
export const RECONCILE_ACTOR = "service:reconcile";

/** How long a statement feed may be silent before operators are warned, unless its account says. */
export const DEFAULT_SILENCE_MINUTES = 30;

/** A feed is silent when it never spoke, or not within its account's allowance. */
export function feedSilent(
  feed: { last_at: number | null; silence_minutes: number | null },
  now: number,
): boolean {
  const allowance = (feed.silence_minutes ?? DEFAULT_SILENCE_MINUTES) * 60_000;
  return feed.last_at === null || now - feed.last_at > allowance;
}
