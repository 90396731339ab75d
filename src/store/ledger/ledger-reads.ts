import { type Kysely, sql } from "kysely";
import {
  type AccountKey,
  type EntryKind,
  firmAccount,
  inTransitAccount,
  normalBalance,
  parseAccountKey,
} from "../../domain/ledger.js";
import { turkeyDayStart } from "../../domain/turkey-time.js";
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

/**
 * The day's figures in one statement (one snapshot): the day's rows by kind, the days after it, and
 * the counters now; the closing is the balance now less the days after, the opening the closing
 * less the day. A few rows per kind and shard, however many entries the day holds.
 */
export async function accountDay(
  db: Kysely<Database>,
  account: AccountKey,
  day: string,
  now: number,
): Promise<DayFiguresOutcome<AccountDayFigures>> {
  const start = /^\d{4}-\d{2}-\d{2}$/.test(day) ? turkeyDayStart(day) : Number.NaN;
  if (!Number.isFinite(start)) return { ok: false, reason: "bad_day" };
  if (start > now) return { ok: false, reason: "future" };
  const parsed = parseAccountKey(account);
  const { rows } = await sql<{ kind: string; amount: unknown; entries: unknown }>`
    WITH a AS (SELECT id FROM ledger_accounts WHERE key = ${account})
    SELECT d.kind AS kind, sum(d.amount) AS amount, sum(d.entries) AS entries
    FROM ledger_days d JOIN a ON d.account_id = a.id WHERE d.day_start = ${start} GROUP BY d.kind
    UNION ALL
    SELECT '#after', coalesce(sum(d.amount), 0), 0
    FROM ledger_days d JOIN a ON d.account_id = a.id WHERE d.day_start > ${start}
    UNION ALL
    SELECT '#now', coalesce(sum(b.balance), 0), 0 FROM ledger_balances b JOIN a ON b.account_id = a.id`.execute(
    db,
  );
  const side = (v: unknown) => (parsed ? normalBalance(parsed.kind, Number(v ?? 0)) : 0);
  let balanceNow = 0;
  let after = 0;
  let moved = 0;
  let entries = 0;
  const movements: Partial<Record<EntryKind, number>> = {};
  for (const r of rows) {
    if (r.kind === "#now") balanceNow = side(r.amount);
    else if (r.kind === "#after") after = side(r.amount);
    else {
      movements[r.kind as EntryKind] = side(r.amount);
      moved += side(r.amount);
      entries += Number(r.entries);
    }
  }
  const closing = balanceNow - after;
  return { ok: true, figures: { account, day, opening: closing - moved, closing, movements, entries } };
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
