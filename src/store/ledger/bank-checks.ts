/**
 * The bank checks the ledger (docs/ledger.md, "The bank's check"): a bank account's cash as the
 * ledger expects it at a statement's end, against the statement's closing balance, and the lines
 * and postings that make up any difference.
 *
 * A cash entry counts from the moment its money reached the bank: the booking of the statement
 * line tied to its posting (a deposit's line, a payout's debit, a held line), else the posting's
 * own time (an approval by hand whose money the bank has not shown yet). So an import that approves
 * yesterday's lines today agrees with yesterday's closing. Ties are looked for within a window
 * before the statement's end (`CHECK_WINDOW_MS`): an entry older than it counts at its own time.
 */
import { type Kysely, sql } from "kysely";
import { cashAccount } from "../../domain/ledger.js";
import type { Database } from "../schema.js";

/** How far back before a statement's end lines and entries are tied to one another. */
export const CHECK_WINDOW_MS = 35 * 86_400_000;
/** The most lines or postings a check lists of each kind (its counts and sums cover them all). */
export const CHECK_LIST_LIMIT = 50;

/** A statement line the ledger does not hold (a credit for nobody yet, a debit nobody recorded). */
export interface UnpostedLine {
  lineId: number;
  bookedAt: number;
  /** Signed as it moved the bank's balance: credits positive, debits negative. */
  amount: number;
  state: string;
  payoutOutcome: string | null;
  description: string;
}

/** A cash posting the bank has not shown by the statement's end (an approval by hand, say). */
export interface UnbankedPosting {
  postingId: number;
  key: string;
  at: number;
  /** As it moved the ledger's cash: a deposit positive, a payout negative. */
  amount: number;
}

export interface CheckExplanation {
  unposted: { count: number; sum: number; lines: UnpostedLine[] };
  unbanked: { count: number; sum: number; postings: UnbankedPosting[] };
}

export interface BankCheckRow {
  id: number;
  iban: string;
  accountId: number;
  importId: number | null;
  source: "file" | "feed";
  at: number;
  bankClosing: number | null;
  expected: number;
  difference: number | null;
  problem: string | null;
  unpostedSum: number;
  unbankedSum: number;
  createdAt: number;
}

export type NewBankCheck = Omit<BankCheckRow, "id">;

/**
 * Each statement line of the accounts booked after `from` with the ledger's key of a posting that
 * may hold its money: a deposit's approval, a payout's debit (paid by hand or by the payout's
 * stages), the batch of held credits or bank fees it was written with (`held_posting_id`). A key
 * no posting has ties nothing; a posting of many lines counts from the last of their bookings.
 */
const linePostings = (ids: readonly number[], from: number) => {
  const mine = sql`l.account_id IN (${sql.join(ids)}) AND l.booked_at > ${from}`;
  return sql`
    SELECT l.id AS line_id, l.booked_at AS booked_at, 'deposit-approved:' || l.transaction_id AS key
    FROM statement_lines l WHERE ${mine} AND l.direction = 'credit' AND l.transaction_id IS NOT NULL
    UNION ALL
    SELECT l.id, l.booked_at, p.idempotency_key FROM statement_lines l
    JOIN ledger_postings p ON p.id = l.held_posting_id WHERE ${mine}
    UNION ALL
    SELECT l.id, l.booked_at, 'withdrawal-paid:' || t.transaction_id
    FROM statement_lines l JOIN payout_line_links k ON k.line_id = l.id AND k.role = 'debit'
    JOIN payout_attempts t ON t.id = k.attempt_id WHERE ${mine}
    UNION ALL
    SELECT l.id, l.booked_at, 'payout-paid:' || t.id
    FROM statement_lines l JOIN payout_line_links k ON k.line_id = l.id AND k.role = 'debit'
    JOIN payout_attempts t ON t.id = k.attempt_id WHERE ${mine}`;
};

/**
 * The cash account's entries of the window, each with the moment its money counts from: its tied
 * line's booking, else its own time (`tied` 0).
 */
const recentEntries = (iban: string, ids: readonly number[], from: number) => sql`
  a AS (SELECT id FROM ledger_accounts WHERE key = ${cashAccount(iban)}),
  lp AS (${linePostings(ids, from)}),
  recent AS (
    SELECT e.amount AS amount, e.at AS at, p.id AS posting_id, p.idempotency_key AS key, p.kind AS kind,
      (SELECT max(lp.booked_at) FROM lp WHERE lp.key = p.idempotency_key) AS booked_at
    FROM ledger_entries e JOIN a ON e.account_id = a.id JOIN ledger_postings p ON p.id = e.posting_id
    WHERE e.at > ${from})`;

/**
 * The cash the ledger expects at the bank at `end`: the balance now, less each entry of the window
 * whose money reached the bank after `end` (its line booked after, or no line and posted after).
 */
export async function expectedAt(
  db: Kysely<Database>,
  iban: string,
  accountIds: readonly number[],
  end: number,
): Promise<number> {
  const { rows } = await sql<{ balance: unknown; later: unknown }>`
    WITH ${recentEntries(iban, accountIds, end - CHECK_WINDOW_MS)}
    SELECT (SELECT coalesce(sum(b.balance), 0) FROM ledger_balances b JOIN a ON b.account_id = a.id) AS balance,
      (SELECT coalesce(sum(amount), 0) FROM recent WHERE coalesce(booked_at, at) > ${end}) AS later`.execute(
    db,
  );
  const row = rows[0];
  return Number(row?.balance ?? 0) - Number(row?.later ?? 0);
}

/** A cash entry no line has shown by `end`; an opening balance was at the bank already. */
const unbanked = (end: number) => sql`booked_at IS NULL AND at <= ${end} AND kind <> 'opening_balance'`;

/**
 * What makes up a difference at `end`, within the window: the lines booked by then whose money no
 * posting holds, and the cash postings of then that no line has shown (counts and sums of all, the
 * first `CHECK_LIST_LIMIT` of each listed).
 */
export async function explain(
  db: Kysely<Database>,
  iban: string,
  accountIds: readonly number[],
  end: number,
): Promise<CheckExplanation> {
  const from = end - CHECK_WINDOW_MS;
  const unpostedWhere = sql`l.account_id IN (${sql.join(accountIds)}) AND l.booked_at > ${from}
    AND l.booked_at <= ${end} AND NOT EXISTS (
      SELECT 1 FROM lp JOIN ledger_postings p ON p.idempotency_key = lp.key WHERE lp.line_id = l.id)`;
  const signed = sql`CASE WHEN l.direction = 'credit' THEN l.amount ELSE -l.amount END`;
  const lp = sql`lp AS (${linePostings(accountIds, from)})`;
  const [lineTotals, lines, postingTotals, postings] = await Promise.all([
    sql<{ n: unknown; total: unknown }>`WITH ${lp}
      SELECT count(*) AS n, coalesce(sum(${signed}), 0) AS total FROM statement_lines l WHERE ${unpostedWhere}`.execute(
      db,
    ),
    sql<{
      id: unknown;
      booked_at: unknown;
      amount: unknown;
      state: string;
      payout_outcome: string | null;
      description: string;
    }>`
      WITH ${lp}
      SELECT l.id AS id, l.booked_at AS booked_at, ${signed} AS amount, l.state AS state,
        l.payout_outcome AS payout_outcome, l.description AS description
      FROM statement_lines l WHERE ${unpostedWhere} ORDER BY l.booked_at, l.id LIMIT ${CHECK_LIST_LIMIT}`.execute(
      db,
    ),
    sql<{ n: unknown; total: unknown }>`WITH ${recentEntries(iban, accountIds, from)}
      SELECT count(*) AS n, coalesce(sum(amount), 0) AS total FROM recent WHERE booked_at IS NULL AND at <= ${end}`.execute(
      db,
    ),
    sql<{ posting_id: unknown; key: string; at: unknown; amount: unknown }>`
      WITH ${recentEntries(iban, accountIds, from)}
      SELECT posting_id, key, at, amount FROM recent WHERE ${unbanked(end)}
      ORDER BY at, posting_id LIMIT ${CHECK_LIST_LIMIT}`.execute(db),
  ]);
  return {
    unposted: {
      count: Number(lineTotals.rows[0]?.n ?? 0),
      sum: Number(lineTotals.rows[0]?.total ?? 0),
      lines: lines.rows.map((r) => ({
        lineId: Number(r.id),
        bookedAt: Number(r.booked_at),
        amount: Number(r.amount),
        state: r.state,
        payoutOutcome: r.payout_outcome,
        description: r.description,
      })),
    },
    unbanked: {
      count: Number(postingTotals.rows[0]?.n ?? 0),
      sum: Number(postingTotals.rows[0]?.total ?? 0),
      postings: postings.rows.map((r) => ({
        postingId: Number(r.posting_id),
        key: r.key,
        at: Number(r.at),
        amount: Number(r.amount),
      })),
    },
  };
}

type CheckRow = {
  id: unknown;
  iban: string;
  account_id: unknown;
  import_id: unknown;
  source: "file" | "feed";
  at: unknown;
  bank_closing: unknown;
  expected: unknown;
  difference: unknown;
  problem: string | null;
  unposted_sum: unknown;
  unbanked_sum: unknown;
  created_at: unknown;
};

const orNull = (v: unknown) => (v === null || v === undefined ? null : Number(v));

function checkOf(r: CheckRow): BankCheckRow {
  return {
    id: Number(r.id),
    iban: r.iban,
    accountId: Number(r.account_id),
    importId: orNull(r.import_id),
    source: r.source,
    at: Number(r.at),
    bankClosing: orNull(r.bank_closing),
    expected: Number(r.expected),
    difference: orNull(r.difference),
    problem: r.problem,
    unpostedSum: Number(r.unposted_sum),
    unbankedSum: Number(r.unbanked_sum),
    createdAt: Number(r.created_at),
  };
}

export async function recordCheck(db: Kysely<Database>, c: NewBankCheck): Promise<BankCheckRow> {
  const { rows } = await sql<CheckRow>`
    INSERT INTO ledger_bank_checks (iban, account_id, import_id, source, at, bank_closing, expected,
      difference, problem, unposted_sum, unbanked_sum, created_at)
    VALUES (${c.iban}, ${c.accountId}, ${c.importId}, ${c.source}, ${c.at}, ${c.bankClosing}, ${c.expected},
      ${c.difference}, ${c.problem}, ${c.unpostedSum}, ${c.unbankedSum}, ${c.createdAt})
    RETURNING *`.execute(db);
  const row = rows[0];
  if (!row) throw new Error("ledger_bank_checks: the insert returned no row");
  return checkOf(row);
}

/** The IBAN's checks with a statement's end at or before `at`, latest first. */
export async function checksOf(
  db: Kysely<Database>,
  iban: string,
  at: number,
  limit: number,
): Promise<BankCheckRow[]> {
  const { rows } = await sql<CheckRow>`
    SELECT * FROM ledger_bank_checks WHERE iban = ${iban} AND at <= ${at}
    ORDER BY at DESC, id DESC LIMIT ${limit}`.execute(db);
  return rows.map(checkOf);
}

export interface BankCheckRepository {
  /** The cash the ledger expects at the bank account at `end` (see expectedAt). */
  expectedAt(iban: string, accountIds: readonly number[], end: number): Promise<number>;
  /** The lines and postings that make up a difference at `end`. */
  explain(iban: string, accountIds: readonly number[], end: number): Promise<CheckExplanation>;
  record(check: NewBankCheck): Promise<BankCheckRow>;
  /** The IBAN's checks of statements ending at or before `at`, latest first. */
  checks(iban: string, at: number, limit: number): Promise<BankCheckRow[]>;
}

export function createBankCheckRepository(db: Kysely<Database>): BankCheckRepository {
  return {
    expectedAt: (iban, ids, end) => expectedAt(db, iban, ids, end),
    explain: (iban, ids, end) => explain(db, iban, ids, end),
    record: (check) => recordCheck(db, check),
    checks: (iban, at, limit) => checksOf(db, iban, at, limit),
  };
}
