import { type Kysely, sql } from "kysely";
import {
  type AccountKey,
  type EntryKind,
  firmAccount,
  inTransitAccount,
  normalBalance,
  parseAccountKey,
} from "../../domain/ledger.js";
import { startOfTurkeyDay, turkeyDayOf, turkeyDayStart } from "../../domain/turkey-time.js";
import type { Database } from "../schema.js";

/** An account's Türkiye day: its balance at the day's start and end, and what moved it, by entry kind. */
export interface AccountDayFigures {
  account: AccountKey;
  day: string;
  opening: number;
  closing: number;
  /** Each kind's net movement on the account's normal side (a firm's deposits positive, its commissions negative). */
  movements: Partial<Record<EntryKind, number>>;
  entries: number;
}

export interface FirmDayFigures {
  firmId: number;
  day: string;
  /** The firm's balance: what the company owes it and it may use. */
  available: AccountDayFigures;
  /** Its payouts sent and not yet seen leaving the bank. */
  inTransit: AccountDayFigures;
}

export type DayFiguresOutcome<T> = { ok: true; figures: T } | { ok: false; reason: "bad_day" | "future" };

/** Days a ranged read may span: a year of Türkiye's days. */
export const MAX_DAYS = 366;
const DAY_MS = 86_400_000;

export type DaysOutcome =
  | { ok: true; days: AccountDayFigures[] }
  | { ok: false; reason: "bad_day" | "future" | "too_long" };

/**
 * An account's figures for each Türkiye day from `from` to `to` (both included, oldest first), in
 * one statement (one snapshot): the range's rows by day and kind, the days after it, and the
 * counters now. A day's closing is the balance now less every later day; its opening, the closing
 * less the day. A few rows per day, kind and shard, however many entries a day holds. A range
 * reaching past today ends at today.
 */
export async function accountDays(
  db: Kysely<Database>,
  account: AccountKey,
  from: string,
  to: string,
  now: number,
): Promise<DaysOutcome> {
  const first = dayStartOf(from);
  const asked = dayStartOf(to);
  if (!Number.isFinite(first) || !Number.isFinite(asked) || asked < first)
    return { ok: false, reason: "bad_day" };
  if (first > now) return { ok: false, reason: "future" };
  const last = Math.min(asked, startOfTurkeyDay(now));
  if ((last - first) / DAY_MS >= MAX_DAYS) return { ok: false, reason: "too_long" };
  const parsed = parseAccountKey(account);
  const { rows } = await sql<{ day: unknown; kind: string; amount: unknown; entries: unknown }>`
    WITH a AS (SELECT id FROM ledger_accounts WHERE key = ${account})
    SELECT d.day_start AS day, d.kind AS kind, sum(d.amount) AS amount, sum(d.entries) AS entries
    FROM ledger_days d JOIN a ON d.account_id = a.id
    WHERE d.day_start >= ${first} AND d.day_start <= ${last} GROUP BY d.day_start, d.kind
    UNION ALL
    SELECT NULL, '#after', coalesce(sum(d.amount), 0), 0
    FROM ledger_days d JOIN a ON d.account_id = a.id WHERE d.day_start > ${last}
    UNION ALL
    SELECT NULL, '#now', coalesce(sum(b.balance), 0), 0 FROM ledger_balances b JOIN a ON b.account_id = a.id`.execute(
    db,
  );
  const side = (v: unknown) => (parsed ? normalBalance(parsed.kind, Number(v ?? 0)) : 0);
  const byDay = new Map<
    number,
    { moved: number; entries: number; movements: Partial<Record<EntryKind, number>> }
  >();
  let closing = 0;
  for (const r of rows) {
    if (r.kind === "#now") closing += side(r.amount);
    else if (r.kind === "#after") closing -= side(r.amount);
    else {
      const start = Number(r.day);
      const day = byDay.get(start) ?? { moved: 0, entries: 0, movements: {} };
      day.movements[r.kind as EntryKind] = side(r.amount);
      day.moved += side(r.amount);
      day.entries += Number(r.entries);
      byDay.set(start, day);
    }
  }
  const days: AccountDayFigures[] = [];
  for (let start = last; start >= first; start -= DAY_MS) {
    const day = byDay.get(start) ?? { moved: 0, entries: 0, movements: {} };
    const opening = closing - day.moved;
    days.push({
      account,
      day: turkeyDayOf(start),
      opening,
      closing,
      movements: day.movements,
      entries: day.entries,
    });
    closing = opening;
  }
  return { ok: true, days: days.reverse() };
}

function dayStartOf(day: string): number {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day)) return Number.NaN;
  const start = turkeyDayStart(day);
  // Date.parse rolls 2026-02-30 over to March: a day is one the calendar has.
  return Number.isFinite(start) && turkeyDayOf(start) === day ? start : Number.NaN;
}

/** One Türkiye day of an account (accountDays of one day). */
export async function accountDay(
  db: Kysely<Database>,
  account: AccountKey,
  day: string,
  now: number,
): Promise<DayFiguresOutcome<AccountDayFigures>> {
  const read = await accountDays(db, account, day, day, now);
  if (!read.ok) return { ok: false, reason: read.reason === "future" ? "future" : "bad_day" };
  const figures = read.days[0];
  return figures ? { ok: true, figures } : { ok: false, reason: "bad_day" };
}

export async function dayFigures(
  db: Kysely<Database>,
  firmId: number,
  day: string,
  now: number,
): Promise<DayFiguresOutcome<FirmDayFigures>> {
  const available = await accountDay(db, firmAccount(firmId), day, now);
  if (!available.ok) return available;
  const inTransit = await accountDay(db, inTransitAccount(firmId), day, now);
  if (!inTransit.ok) return inTransit;
  return { ok: true, figures: { firmId, day, available: available.figures, inTransit: inTransit.figures } };
}
