import { startOfTurkeyDay } from "../domain/turkey-time.js";
import type { TransactionFilter } from "../store/transactions/transaction-searches.js";

/**
 * How far back a search without dates looks: the last 31 of Türkiye's days, today included. A
 * search by a name, an amount, a status or a firm alone would otherwise read years of rows to fill
 * a page, on screens operators refresh all day. A search that names its rows by a key (an id, a
 * reference, a user id, a username, an IBAN) reads only those rows through its index, however old,
 * and keeps all of time: a payer asking about last year's transfer is found by their reference.
 */
export const DEFAULT_SEARCH_DAYS = 31;
const DAY_MS = 86_400_000;

export interface Windowed {
  filter: TransactionFilter;
  /** The start the search was given because it had none (epoch ms); null when it had dates or a key. */
  defaultedFrom: number | null;
}

/**
 * A search with an end and no start covers the 31 days up to that end: "until the 3rd" asks about
 * the days before it, not about every year before it.
 */
export function withSearchWindow(filter: TransactionFilter, now: number): Windowed {
  const keyed = [filter.id, filter.reference, filter.userId, filter.username, filter.iban].some(
    (k) => k !== undefined,
  );
  if (filter.from !== undefined || keyed) return { filter, defaultedFrom: null };
  // `to` is exclusive: its last moment is the day the window ends on.
  const lastDay = startOfTurkeyDay(filter.to === undefined ? now : filter.to - 1);
  const from = lastDay - (DEFAULT_SEARCH_DAYS - 1) * DAY_MS;
  return { filter: { ...filter, from }, defaultedFrom: from };
}
