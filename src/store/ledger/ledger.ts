import { type Kysely, sql } from "kysely";
import {
  type AccountKey,
  type EntryKind,
  normalBalance,
  type PostingDraft,
  type PostingKind,
  type PostingLine,
  parseAccountKey,
  postingProblem,
} from "../../domain/ledger.js";
import { startOfTurkeyDay } from "../../domain/turkey-time.js";
import { writeAudit } from "../audited.js";
import type { Database } from "../schema.js";
import { LedgerPostingError, ledgerViolation } from "./ledger-errors.js";
import {
  accountDay,
  accountDays,
  type DayFiguresOutcome,
  dayFigures,
  type FirmDayFigures,
} from "./ledger-reads.js";
import { type DecidedSums, decidedBeforeLedger } from "./openings.js";

/** A posting as the ledger holds it. */
export interface Posting extends Omit<PostingDraft, "kind"> {
  id: number;
  kind: PostingKind;
}

/** A posting written, or the one a retried event had written already (`replayed`). */
export interface PostOutcome {
  posting: Posting;
  replayed: boolean;
}

/** A balance as of a moment, or why there is none: a moment still to come, or before the ledger began. */
export type BalanceAt = { ok: true; balance: number } | { ok: false; reason: "future" | "before_ledger" };

/** One entry of an account, its `amount` as the account's balance moved (its normal side positive). */
export interface EntryView {
  /** The entry's own id: with `at`, where a page of entries ends (`entries`' `after`). */
  id: number;
  postingId: number;
  postingKey: string;
  postingKind: string;
  kind: EntryKind;
  at: number;
  amount: number;
  memo: string | null;
}

export interface LedgerRepository {
  /**
   * Writes a posting within the caller's database transaction (or alone, given the store's db): an
   * approval and its posting commit together or not at all. One statement: the database checks the
   * posting, makes its accounts and writes its entries, counters and day figures (migration
   * 20261206T1200). A key already posted answers that posting (`replayed`), so a retried event
   * posts once; the same key with other entries is a bug and throws, as does a posting the
   * database refuses (LedgerPostingError, naming the rule).
   */
  post(within: Kysely<Database>, draft: PostingDraft): Promise<PostOutcome>;
  /**
   * A correction: a new posting naming the one it corrects, with the lines given, or without them
   * the original's lines reversed (its key then `reversal:<id>`). Undefined when there is no such posting.
   */
  correct(
    within: Kysely<Database>,
    correction: {
      corrects: number;
      at: number;
      actor: string;
      memo: string;
      key?: string;
      lines?: PostingLine[];
    },
  ): Promise<PostOutcome | undefined>;
  posting(id: number): Promise<Posting | undefined>;
  postingByKey(key: string): Promise<Posting | undefined>;
  /** The account's balance now, on its normal side (a firm's: what the company owes it). O(shards). */
  balance(account: AccountKey): Promise<number>;
  /** The account's balance as of `at` (entries at `at` included), read in one statement. */
  balanceAt(account: AccountKey, at: number, now: number): Promise<BalanceAt>;
  /**
   * The account's entries with `from <= at < to`, oldest first (by time, then id), at most `limit`,
   * after the entry `after` names when given (the last one of the page before).
   */
  entries(
    account: AccountKey,
    from: number,
    to: number,
    limit?: number,
    after?: { at: number; id: number },
  ): Promise<EntryView[]>;
  /** A firm's day (Türkiye's, YYYY-MM-DD): its balance's opening, movements by kind and closing, and its payouts in transit. */
  dayFigures(firmId: number, day: string, now: number): Promise<DayFiguresOutcome<FirmDayFigures>>;
  /** The same figures for any account. */
  accountDay(account: AccountKey, day: string, now: number): ReturnType<typeof accountDay>;
  /** An account's figures for each day from `from` to `to` (YYYY-MM-DD, both included), in one statement. */
  accountDays(account: AccountKey, from: string, to: string, now: number): ReturnType<typeof accountDays>;
  /** What a firm's payouts in live batches not yet sent hold back (batched, second approval): kuruş. */
  heldInBatches(firmId: number): Promise<number>;
  /**
   * A posting an operator made (an adjustment, a settlement, an opening balance) with its audit
   * row, in one database transaction; a replayed key writes neither again.
   */
  postAudited(
    draft: PostingDraft,
    audit: { action: string; entityType: string; entityId: string },
  ): Promise<PostOutcome>;
  /** The opening balances set, by the account they open (on its normal side). */
  openings(): Promise<Map<AccountKey, number>>;
  /** Each real firm's and IBAN's sums of approvals made before the ledger began (store/ledger/openings.ts). */
  decidedBeforeLedger(now: number): Promise<DecidedSums>;
}

type PostingRow = {
  id: number | string;
  idempotency_key: string;
  kind: string;
  at: number | string;
  actor: string;
  corrects: number | string | null;
  memo: string | null;
  flag: string | null;
  lines: string;
};

interface StoredLine {
  account: string;
  account_kind: string;
  ref: string | null;
  amount: number;
  kind: string;
  currency: "TRY";
}

function storedLines(lines: readonly PostingLine[]): StoredLine[] {
  return lines.map((l) => {
    const parsed = parseAccountKey(l.account);
    return {
      account: l.account,
      account_kind: parsed?.kind ?? "",
      ref: parsed?.ref ?? null,
      amount: l.amount,
      kind: l.kind,
      currency: "TRY",
    };
  });
}

function postingOf(row: PostingRow): Posting {
  const lines = (JSON.parse(row.lines) as StoredLine[]).map(
    (l): PostingLine => ({ account: l.account, amount: Number(l.amount), kind: l.kind as EntryKind }),
  );
  return {
    id: Number(row.id),
    key: row.idempotency_key,
    kind: row.kind as PostingKind,
    at: Number(row.at),
    actor: row.actor,
    corrects: row.corrects === null ? null : Number(row.corrects),
    memo: row.memo,
    flag: row.flag,
    lines,
  };
}

const sameLines = (a: readonly PostingLine[], b: readonly PostingLine[]) =>
  a.length === b.length &&
  a.every((l, i) => l.account === b[i]?.account && l.amount === b[i]?.amount && l.kind === b[i]?.kind);

async function byKey(db: Kysely<Database>, key: string): Promise<Posting | undefined> {
  const row = await db
    .selectFrom("ledger_postings")
    .selectAll()
    .where("idempotency_key", "=", key)
    .executeTakeFirst();
  return row ? postingOf(row) : undefined;
}

/** See LedgerRepository.post. */
export async function post(within: Kysely<Database>, draft: PostingDraft): Promise<PostOutcome> {
  const problem = postingProblem(draft);
  if (problem !== null) throw new LedgerPostingError(`ledger_posting_${problem}`, draft.key);
  let row: PostingRow | undefined;
  try {
    row = await within
      .insertInto("ledger_postings")
      .values({
        idempotency_key: draft.key,
        kind: draft.kind,
        at: draft.at,
        actor: draft.actor,
        corrects: draft.corrects,
        memo: draft.memo,
        flag: draft.flag,
        lines: JSON.stringify(storedLines(draft.lines)),
      })
      .onConflict((oc) => oc.column("idempotency_key").doNothing())
      .returningAll()
      .executeTakeFirst();
  } catch (err) {
    const rule = ledgerViolation(err);
    if (rule !== null) throw new LedgerPostingError(rule, draft.key);
    throw err;
  }
  if (row) return { posting: postingOf(row), replayed: false };
  const existing = await byKey(within, draft.key);
  if (!existing || existing.kind !== draft.kind || !sameLines(existing.lines, draft.lines))
    throw new LedgerPostingError("ledger_key_reused", draft.key);
  return { posting: existing, replayed: true };
}

async function correct(
  within: Kysely<Database>,
  c: Parameters<LedgerRepository["correct"]>[1],
): Promise<PostOutcome | undefined> {
  const row = await within
    .selectFrom("ledger_postings")
    .selectAll()
    .where("id", "=", c.corrects)
    .executeTakeFirst();
  if (!row) return undefined;
  const original = postingOf(row);
  const lines = c.lines ?? original.lines.map((l) => ({ ...l, amount: -l.amount }));
  return post(within, {
    key: c.key ?? `reversal:${original.id}`,
    kind: "correction",
    at: c.at,
    actor: c.actor,
    corrects: original.id,
    memo: c.memo,
    flag: null,
    lines,
  });
}

const num = (v: unknown) => Number(v ?? 0);

export function createLedgerRepository(db: Kysely<Database>): LedgerRepository {
  return {
    post,
    correct,
    async posting(id) {
      const row = await db.selectFrom("ledger_postings").selectAll().where("id", "=", id).executeTakeFirst();
      return row ? postingOf(row) : undefined;
    },
    postingByKey: (key) => byKey(db, key),

    async balance(account) {
      const parsed = parseAccountKey(account);
      if (!parsed) return 0;
      const row = await db
        .selectFrom("ledger_balances")
        .innerJoin("ledger_accounts", "ledger_accounts.id", "ledger_balances.account_id")
        .select(sql<string | number | null>`sum(ledger_balances.balance)`.as("balance"))
        .where("ledger_accounts.key", "=", account)
        .executeTakeFirst();
      return normalBalance(parsed.kind, num(row?.balance));
    },

    async balanceAt(account, at, now) {
      if (at > now) return { ok: false, reason: "future" };
      const parsed = parseAccountKey(account);
      const dayStart = startOfTurkeyDay(at);
      // One statement, so one snapshot: the counters, the days after and the day's later entries agree.
      const { rows } = await sql<{ first_at: unknown; balance: unknown }>`
        SELECT (SELECT min(at) FROM ledger_postings) AS first_at,
          (SELECT coalesce(sum(b.balance), 0) FROM ledger_balances b WHERE b.account_id = a.id)
          - (SELECT coalesce(sum(d.amount), 0) FROM ledger_days d
             WHERE d.account_id = a.id AND d.day_start > ${dayStart})
          - (SELECT coalesce(sum(e.amount), 0) FROM ledger_entries e
             WHERE e.account_id = a.id AND e.at > ${at} AND e.at < ${dayStart + 86_400_000}) AS balance
        FROM (SELECT 1 AS one) o LEFT JOIN ledger_accounts a ON a.key = ${account}`.execute(db);
      const row = rows[0];
      if (row?.first_at === null || row?.first_at === undefined || at < Number(row.first_at))
        return { ok: false, reason: "before_ledger" };
      return { ok: true, balance: parsed ? normalBalance(parsed.kind, num(row.balance)) : 0 };
    },

    async entries(account, from, to, limit = 1000, after) {
      const parsed = parseAccountKey(account);
      if (!parsed) return [];
      // The account's id as a subquery, not a join: PostgreSQL then knows it when it plans, walks
      // (account, at, id) in order and stops at the page's end; joined, it read and sorted the rest
      // of the day on every page.
      const accountId = db.selectFrom("ledger_accounts").select("id").where("key", "=", account);
      let query = db
        .selectFrom("ledger_entries as e")
        .innerJoin("ledger_postings as p", "p.id", "e.posting_id")
        .select([
          "e.id",
          "e.posting_id",
          "p.idempotency_key",
          "p.kind as posting_kind",
          "e.kind",
          "e.at",
          "e.amount",
        ])
        .select("p.memo")
        .where("e.account_id", "=", accountId)
        .where("e.at", ">=", from)
        .where("e.at", "<", to);
      // Past the page before: the index's range starts at its time (`e.at >=`), the rest only
      // sorts out that one moment (an OR alone would read the day from its start on every page).
      if (after)
        query = query
          .where("e.at", ">=", after.at)
          .where((w) => w.or([w("e.at", ">", after.at), w("e.id", ">", after.id)]));
      const rows = await query.orderBy("e.at").orderBy("e.id").limit(limit).execute();
      return rows.map((r) => ({
        id: Number(r.id),
        postingId: Number(r.posting_id),
        postingKey: r.idempotency_key,
        postingKind: r.posting_kind,
        kind: r.kind as EntryKind,
        at: Number(r.at),
        amount: normalBalance(parsed.kind, Number(r.amount)),
        memo: r.memo,
      }));
    },

    dayFigures: (firmId, day, now) => dayFigures(db, firmId, day, now),
    accountDay: (account, day, now) => accountDay(db, account, day, now),
    accountDays: (account, from, to, now) => accountDays(db, account, from, to, now),

    postAudited: (draft, audit) =>
      db.transaction().execute(async (trx) => {
        const outcome = await post(trx, draft);
        if (!outcome.replayed)
          await writeAudit(
            trx,
            { actor: draft.actor, action: audit.action, at: draft.at },
            audit.entityType,
            audit.entityId,
            null,
            { posting: outcome.posting.id, key: draft.key, memo: draft.memo, lines: draft.lines },
          );
        return outcome;
      }),

    async openings() {
      const rows = await db
        .selectFrom("ledger_postings")
        .selectAll()
        .where("kind", "=", "opening_balance")
        .execute();
      const set = new Map<AccountKey, number>();
      for (const row of rows) {
        const account = row.idempotency_key.slice("opening:".length);
        const parsed = parseAccountKey(account);
        const line = postingOf(row).lines.find((l) => l.account === account);
        if (parsed && line) set.set(account, normalBalance(parsed.kind, line.amount));
      }
      return set;
    },

    decidedBeforeLedger: (now) => decidedBeforeLedger(db, now),

    async heldInBatches(firmId) {
      const row = await db
        .selectFrom("payout_attempts")
        .select(sql<string | number | null>`sum(amount)`.as("held"))
        .where("firm_id", "=", firmId)
        .where("stage", "in", ["batched", "second_approval"])
        .executeTakeFirst();
      return num(row?.held);
    },
  };
}
