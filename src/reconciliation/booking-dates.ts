/**
 * When a statement line may say it was booked (docs/reconciliation.md, "Limits"): a real calendar
 * day, not more than BOOKED_DAYS_BACK days before today nor after it (a bank never books ahead), and
 * for a file's line, within its statement's own period give or take PERIOD_SLACK_DAYS. The window
 * keeps the deposits a batch of lines is compared with to the days it is about.
 */
const DAY_MS = 86_400_000;
export const BOOKED_DAYS_BACK = 400;
/** How far after now a file's booking may lie: a statement's day may begin before ours does. */
const FILE_FUTURE_MS = DAY_MS;
/** How far outside its statement's period an entry's booking day may lie (value dates, holidays). */
export const PERIOD_SLACK_DAYS = 7;

/** A calendar day that exists: Date.parse takes 2026-02-30 for 2 March. */
export function isRealDay(day: string): boolean {
  const at = Date.parse(`${day}T00:00:00Z`);
  return Number.isFinite(at) && new Date(at).toISOString().slice(0, 10) === day;
}

/** Why a booking time is outside the window around `now`, or null when inside it. */
export function outsideBookingWindow(
  bookedAt: number,
  now: number,
  futureMs = FILE_FUTURE_MS,
): string | null {
  if (bookedAt < now - BOOKED_DAYS_BACK * DAY_MS) return `more than ${BOOKED_DAYS_BACK} days ago`;
  if (bookedAt > now + futureMs) return "in the future";
  return null;
}

/** Why entries booked from `first` to `last` lie outside their statement's period, or null. */
export function outsidePeriod(
  first: number,
  last: number,
  period: { from: number | null; to: number | null },
): string | null {
  const slack = PERIOD_SLACK_DAYS * DAY_MS;
  if (period.from !== null && first < period.from - slack)
    return `an entry is booked more than ${PERIOD_SLACK_DAYS} days before the statement's period`;
  if (period.to !== null && last > period.to + DAY_MS + slack)
    return `an entry is booked more than ${PERIOD_SLACK_DAYS} days after the statement's period`;
  return null;
}
