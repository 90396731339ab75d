/**
 * Türkiye's clock: UTC+03:00 all year (no daylight saving since 2016). Days that count (a daily
 * cap, the summary's today, a bank's booking date without a time) are Türkiye's days, whatever the
 * server's own zone.
 */
export const TURKEY_OFFSET_MS = 3 * 3_600_000;
/** The offset as ISO 8601 writes it. */
export const TURKEY_ZONE = "+03:00";
/** The zone's name, for Intl's formatting of dates and times. */
export const TURKEY_TIME_ZONE = "Europe/Istanbul";
const DAY_MS = 86_400_000;

/** The start of the day in Türkiye that holds `at`, as epoch milliseconds. */
export function startOfTurkeyDay(at: number): number {
  return Math.floor((at + TURKEY_OFFSET_MS) / DAY_MS) * DAY_MS - TURKEY_OFFSET_MS;
}

/** Türkiye's calendar day (YYYY-MM-DD) at `at`. */
export function turkeyDayOf(at: number): string {
  return new Date(at + TURKEY_OFFSET_MS).toISOString().slice(0, 10);
}

/** The start of Türkiye's day `day` (YYYY-MM-DD), as epoch milliseconds; NaN when not a date. */
export function turkeyDayStart(day: string): number {
  return Date.parse(`${day}T00:00:00Z`) - TURKEY_OFFSET_MS;
}
