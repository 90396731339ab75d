import { startOfTurkeyDay } from "../domain/turkey-time.js";
import type { TransactionFilter } from "../store/transaction-searches.js";

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

export function withSearchWindow(filter: TransactionFilter, now: number): Windowed {
  const dated = filter.from !== undefined || filter.to !== undefined;
  const keyed = [filter.id, filter.reference, filter.userId, filter.username, filter.iban].some(
    (k) => k !== undefined,
  );
  if (dated || keyed) return { filter, defaultedFrom: null };
  const from = startOfTurkeyDay(now) - (DEFAULT_SEARCH_DAYS - 1) * DAY_MS;
  return { filter: { ...filter, from }, defaultedFrom: from };
}
