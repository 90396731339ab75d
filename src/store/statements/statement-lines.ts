/**
 * Bank statements' lines (migration 20261128T1300_statement_lines): recorded once each, with what
 * the matching made of them, and the approval a line makes written in the same database
 * transaction as the line, so that a crash leaves either both or neither.
 */
import { type Insertable, type Kysely, type Selectable, sql, type Transaction } from "kysely";
import type { PostingDraft } from "../../domain/ledger.js";
import { type DecisionResult, type DecisionWrite, decideWithin } from "../decisions/decisions.js";
import { post as postToLedger } from "../ledger/ledger.js";
import { deadlock } from "../payouts/payout-errors.js";
import {
  closeDoneBatches,
  flagWithin,
  type PayWrite,
  payOrLinkWithin,
  returnWithin,
} from "../payouts/payout-outcomes.js";
import type {
  Database,
  StatementImportTable,
  StatementLinePayoutOutcome,
  StatementLineState,
  StatementLineTable,
} from "../schema.js";
import {
  payRefund,
  type RefundOutcome,
  type RefundPaid,
  refundCandidates,
  refundingDebit,
} from "./refund-lines.js";
import { markNotOurs, type RefundDue, type SettleResult, settleLine } from "./statement-line-actions.js";

export type StatementLineRow = Selectable<StatementLineTable>;
export type NewStatementLine = Omit<
  Insertable<StatementLineTable>,
  "id" | "state" | "transaction_id" | "evidence" | "decided_at" | "decided_by"
>;

/** A deposit a line may be for, with what the matching needs of its firm. */
export interface CandidateRow {
  id: number;
  firm_id: number;
  account_id: number;
  status: "pending" | "approved" | "rejected";
  amount: number;
  created_at: number;
  first_name: string;
  middle_name: string | null;
  last_name: string;
  user_id: string;
  reference: string;
  firm_sandbox: number;
  reconcile_auto: number;
  reconcile_by_name: number;
  /** A line settles it already (0 or 1). */
  settled: number;
}

export interface LineOutcome {
  state: StatementLineState;
  transactionId: number | null;
  evidence: string;
  decidedBy: string | null;
  now: number;
}

export type RecordResult =
  | { kind: "duplicate" }
  /** Recorded with its outcome; `decided` when the outcome approved its deposit. */
  | {
      kind: "recorded";
      lineId: number;
      state: StatementLineState;
      decided?: DecisionResult & { ok: true };
      /** The payouts the line paid (their approvals' callbacks are queued). */
      payoutsPaid?: number;
      payoutOutcome?: StatementLinePayoutOutcome | null;
    };

export interface StatementRepository {
  createImport(values: Omit<Insertable<StatementImportTable>, "id">): Promise<number>;
  /** The numbers of the account's latest statements (up to 100, newest first). */
  recentSequences(accountId: number): Promise<string[]>;
  /** The accounts that share this account's IBAN (itself included): a pool may list one twice. */
  accountsWithIbanOf(accountId: number): Promise<{ ids: number[]; iban: string } | undefined>;
  /**
   * Deposits assigned to these accounts and made within [from, to], of any status, in order of
   * creation: the first `limit` of them.
   */
  candidates(accountIds: readonly number[], from: number, to: number, limit: number): Promise<CandidateRow[]>;
  /**
   * Records each line with its outcome, and, when given, the decision that approves its deposit, all
   * in one database transaction (all or none). A line whose key the account knows is a duplicate
   * and writes nothing. If the deposit is decided, or settled by another line, by the time this
   * writes (another instance, an operator), the line is recorded as `fallback` instead and nothing
   * is decided.
   */
  recordBatch(items: readonly LineRecord[], hold?: HoldLines): Promise<RecordResult[]>;
  get(id: number): Promise<StatementLineRow | undefined>;
  /** The line that settles (approved, or found approved) this transaction, if one does. */
  settling(transactionId: number): Promise<StatementLineRow | undefined>;
  /** An open credit line approves a pending deposit, both in one database transaction. */
  settle(lineId: number, write: DecisionWrite): Promise<SettleResult>;
  /** The line not ours, and the money it held owed back to its payer (`refundDue`'s posting). */
  markNotOurs(
    lineId: number,
    audit: { actor: string; at: number; note: string | null },
    refundDue: RefundDue,
  ): Promise<boolean>;
  /** A debit pays back a credit marked not ours, with the refund's posting (refund-lines.ts). */
  payRefund(
    ids: { debitId: number; creditId: number },
    audit: { actor: string; at: number; note: string | null },
    refundPaid: RefundPaid,
  ): Promise<RefundOutcome>;
  /** The credits this debit may pay back, the likeliest first (refund-lines.ts). */
  refundCandidates(debit: StatementLineRow): Promise<StatementLineRow[]>;
  /** The debit that paid back this credit, if one did. */
  refundingDebit(creditId: number): Promise<number | null>;
  list(filter: {
    accountId?: number;
    states?: readonly StatementLineState[];
    /** Booked within [from, to). */
    bookedFrom?: number;
    bookedTo?: number;
    /** Lines with an id below this (the next page). */
    before?: number;
    limit: number;
  }): Promise<StatementLineRow[]>;
}

/** A line whose money the ledger takes in at its writing: a credit for nobody yet, or a bank's fee. */
export interface HeldLine {
  lineId: number;
  amount: number;
}

/**
 * The postings that take a batch's money in (reconciliation/held-lines.ts): its credits that pay
 * nobody yet held in suspense, its bank fees; written in the batch's own database transaction,
 * each line marked with the posting that holds it (`held_posting_id`).
 */
export type HoldLines = (lines: {
  held: HeldLine[];
  fees: HeldLine[];
}) => { draft: PostingDraft; lineIds: number[] }[];

/** A credit in these states pays nobody yet: its money waits in suspense until an operator decides. */
export const HELD_STATES: ReadonlySet<StatementLineState> = new Set([
  "unmatched",
  "suggested",
  "after_cancellation",
  "not_ours",
]);

export interface LineRecord {
  line: NewStatementLine;
  outcome: LineOutcome;
  fallback: StatementLineState;
  decision?: ((lineId: number) => DecisionWrite) | undefined;
  /** What the line does to payouts, written with it (store/payouts/payout-outcomes.ts). */
  payout?: PayoutEffect | undefined;
}

/**
 * A debit that pays payouts (their withdrawals approved with it), a credit that returns one, or a
 * line that names a payout paid already or superseded (flagged). Should the payouts have moved by
 * the time the line is written (paid or returned by another line, an instance, a channel), the
 * line keeps what it proves no longer: a payment becomes a suggestion, a return a doubtful one.
 */
export type PayoutEffect =
  | { kind: "pay"; write: Omit<PayWrite, "lineId"> }
  | { kind: "return"; attemptId: number; reason: string | null; actor: string; now: number }
  | { kind: "flag"; attemptId: number; flag: string; actor: string; now: number };

async function recordIn(trx: Transaction<Database>, item: LineRecord): Promise<RecordResult> {
  const { line, outcome, fallback, decision } = item;
  const write = (state: StatementLineState, transactionId: number | null) =>
    trx
      .insertInto("statement_lines")
      .values({
        ...line,
        state,
        transaction_id: transactionId,
        evidence: outcome.evidence,
        decided_at: outcome.decidedBy === null ? null : outcome.now,
        decided_by: outcome.decidedBy,
      })
      // Either unique index: the line's key (a duplicate) or its transaction (settled by another).
      .onConflict((oc) => oc.doNothing())
      .returning("id")
      .executeTakeFirst();
  const known = async () =>
    (await trx
      .selectFrom("statement_lines")
      .select("id")
      .where("account_id", "=", line.account_id)
      .where("line_key", "=", line.line_key)
      .executeTakeFirst()) !== undefined;

  const inserted = await write(outcome.state, outcome.transactionId);
  if (!inserted) {
    if (await known()) return { kind: "duplicate" as const };
    const again = await write(fallback, null);
    if (!again) return { kind: "duplicate" as const };
    return { kind: "recorded" as const, lineId: Number(again.id), state: fallback };
  }
  const lineId = Number(inserted.id);
  if (item.payout) return recordPayout(trx, lineId, item);
  if (!decision) return { kind: "recorded" as const, lineId, state: outcome.state };
  const decided = await decideWithin(trx, decision(lineId));
  if (decided.ok) return { kind: "recorded" as const, lineId, state: outcome.state, decided };
  await trx
    .updateTable("statement_lines")
    .set({ state: fallback, transaction_id: null, decided_at: null, decided_by: null })
    .where("id", "=", lineId)
    .execute();
  return { kind: "recorded" as const, lineId, state: fallback };
}

/** The line's payout effect, in the line's transaction; what it proves no longer, it keeps as doubt. */
async function recordPayout(
  trx: Transaction<Database>,
  lineId: number,
  item: LineRecord,
): Promise<RecordResult> {
  const effect = item.payout as PayoutEffect;
  const state = item.outcome.state;
  const planned = item.line.payout_outcome ?? null;
  const downgrade = async (payoutOutcome: StatementLinePayoutOutcome, lineState: StatementLineState) => {
    await trx
      .updateTable("statement_lines")
      .set({ payout_outcome: payoutOutcome, state: lineState, decided_at: null, decided_by: null })
      .where("id", "=", lineId)
      .execute();
    return { kind: "recorded" as const, lineId, state: lineState, payoutOutcome };
  };
  if (effect.kind === "pay") {
    const { paid, linked } = await payOrLinkWithin(trx, { ...effect.write, lineId });
    if (paid.length === 0 && linked.length === 0) return downgrade("suggested", state);
    return { kind: "recorded" as const, lineId, state, payoutsPaid: paid.length, payoutOutcome: planned };
  }
  if (effect.kind === "return") {
    const result = await returnWithin(trx, { ...effect, lineId });
    if (result === "moved") return downgrade("return_unknown", "unmatched");
    return { kind: "recorded" as const, lineId, state, payoutOutcome: planned };
  }
  await flagWithin(trx, { ...effect, detail: { line: lineId } });
  return { kind: "recorded" as const, lineId, state, payoutOutcome: planned };
}

/**
 * The lines tied to no deposit (unmatched, suggested, debits: nearly all of a statement), written
 * in one statement; a line whose key the account knows is a duplicate. One statement instead of one per line: a 100,000-line file is 200 of them, and the
 * server builds and keeps far fewer queries while the batch's transaction is open.
 */
async function recordPlain(
  trx: Transaction<Database>,
  items: readonly LineRecord[],
): Promise<(RecordResult | undefined)[]> {
  const results: (RecordResult | undefined)[] = new Array(items.length);
  // A key twice in the batch (the same entry twice in a file) is left to the writes in order: the
  // first copy, which may approve, must win over the later one.
  const seen = new Map<string, number>();
  for (const { line } of items) {
    const key = `${line.account_id}\u001f${line.line_key}`;
    seen.set(key, (seen.get(key) ?? 0) + 1);
  }
  const plain = items.flatMap((item, i) =>
    item.outcome.transactionId === null &&
    item.decision === undefined &&
    item.payout === undefined &&
    seen.get(`${item.line.account_id}\u001f${item.line.line_key}`) === 1
      ? [i]
      : [],
  );
  if (plain.length === 0) return results;
  const rows = await trx
    .insertInto("statement_lines")
    .values(
      plain.map((i) => {
        const { line, outcome } = items[i] as LineRecord;
        return {
          ...line,
          state: outcome.state,
          transaction_id: null,
          evidence: outcome.evidence,
          decided_at: outcome.decidedBy === null ? null : outcome.now,
          decided_by: outcome.decidedBy,
        };
      }),
    )
    .onConflict((oc) => oc.doNothing())
    .returning(["id", "account_id", "line_key"])
    .execute();
  const keyOf = (accountId: number, key: string) => `${accountId}\u001f${key}`;
  const inserted = new Map(rows.map((r) => [keyOf(Number(r.account_id), r.line_key), Number(r.id)]));
  for (const i of plain) {
    const { line, outcome } = items[i] as LineRecord;
    const key = keyOf(line.account_id, line.line_key);
    const lineId = inserted.get(key);
    inserted.delete(key);
    results[i] =
      lineId === undefined ? { kind: "duplicate" } : { kind: "recorded", lineId, state: outcome.state };
  }
  return results;
}

/** How many times a batch PostgreSQL ended for a deadlock is written again. */
const BATCH_TRIES = 3;

/** The batch's held credits and bank fees posted, each line marked with its posting. */
async function holdWithin(
  trx: Transaction<Database>,
  items: readonly LineRecord[],
  results: readonly RecordResult[],
  hold: HoldLines,
): Promise<void> {
  const held: HeldLine[] = [];
  const fees: HeldLine[] = [];
  for (const [i, r] of results.entries()) {
    const line = items[i]?.line;
    if (r.kind !== "recorded" || !line || line.currency !== "TRY") continue;
    const outcome = r.payoutOutcome === undefined ? line.payout_outcome : r.payoutOutcome;
    if (line.direction === "credit" && HELD_STATES.has(r.state) && outcome !== "return")
      held.push({ lineId: r.lineId, amount: Number(line.amount) });
    else if (line.direction === "debit" && outcome === "fee")
      fees.push({ lineId: r.lineId, amount: Number(line.amount) });
  }
  if (held.length === 0 && fees.length === 0) return;
  for (const { draft, lineIds } of hold({ held, fees })) {
    const { posting } = await postToLedger(trx, draft);
    await trx
      .updateTable("statement_lines")
      .set({ held_posting_id: posting.id })
      .where("id", "in", lineIds)
      .execute();
  }
}

export function createStatementRepository(db: Kysely<Database>): StatementRepository {
  return {
    async createImport(values) {
      const row = await db
        .insertInto("statement_imports")
        .values(values)
        .returning("id")
        .executeTakeFirstOrThrow();
      return Number(row.id);
    },

    async recentSequences(accountId) {
      const rows = await db
        .selectFrom("statement_imports")
        .select("sequence")
        .where("account_id", "=", accountId)
        .where("sequence", "is not", null)
        .orderBy("id", "desc")
        .limit(100)
        .execute();
      return rows.map((r) => r.sequence as string);
    },

    async accountsWithIbanOf(accountId) {
      const account = await db
        .selectFrom("payment_accounts")
        .select("iban")
        .where("id", "=", accountId)
        .executeTakeFirst();
      if (!account) return undefined;
      const same = await db
        .selectFrom("payment_accounts")
        .select("id")
        .where("iban", "=", account.iban)
        .execute();
      return { ids: same.map((r) => Number(r.id)), iban: account.iban };
    },

    async candidates(accountIds, from, to, limit) {
      if (accountIds.length === 0) return [];
      const rows = await db
        .selectFrom("transactions as t")
        .innerJoin("firms as f", "f.id", "t.firm_id")
        .select([
          "t.id",
          "t.firm_id",
          "t.account_id",
          "t.status",
          "t.amount",
          "t.created_at",
          "t.first_name",
          "t.middle_name",
          "t.last_name",
          "t.user_id",
          "t.reference",
          "f.sandbox as firm_sandbox",
          "f.reconcile_auto",
          "f.reconcile_by_name",
          sql<number>`CASE WHEN EXISTS (SELECT 1 FROM statement_lines l WHERE l.transaction_id = t.id) THEN 1 ELSE 0 END`.as(
            "settled",
          ),
        ])
        // Through transactions_account_day_idx: an account's deposits of those hours.
        .where("t.account_id", "in", accountIds)
        .where("t.created_at", ">=", from)
        .where("t.created_at", "<=", to)
        .where("t.type", "=", "deposit")
        .orderBy("t.created_at")
        .limit(limit)
        .execute();
      return rows.map((r) => ({
        ...r,
        id: Number(r.id),
        firm_id: Number(r.firm_id),
        account_id: Number(r.account_id),
        amount: Number(r.amount),
        created_at: Number(r.created_at),
        firm_sandbox: Number(r.firm_sandbox),
        reconcile_auto: Number(r.reconcile_auto),
        reconcile_by_name: Number(r.reconcile_by_name),
        settled: Number(r.settled),
      })) as CandidateRow[];
    },

    async recordBatch(items, hold) {
      const write = () =>
        db.transaction().execute(async (trx) => {
          const results = await recordPlain(trx, items);
          for (const [i, item] of items.entries()) results[i] ??= await recordIn(trx, item);
          if (hold) await holdWithin(trx, items, results as RecordResult[], hold);
          return results as RecordResult[];
        });
      // A batch's postings add to the counters on the shards their ids pick: another transaction of
      // several postings (another import, a send) may meet them in the other order, and PostgreSQL
      // undoes one of the two. Undone whole, the batch is written again.
      let results: RecordResult[];
      for (let tries = 1; ; tries++) {
        try {
          results = await write();
          break;
        } catch (err) {
          if (!deadlock(err) || tries >= BATCH_TRIES) throw err;
        }
      }
      const payout = items.find((item) => item.payout !== undefined);
      if (payout) await closeDoneBatches(db, payout.outcome.now);
      return results;
    },

    get: (id) => db.selectFrom("statement_lines").selectAll().where("id", "=", id).executeTakeFirst(),
    settling: (transactionId) =>
      db
        .selectFrom("statement_lines")
        .selectAll()
        .where("transaction_id", "=", transactionId)
        .executeTakeFirst(),
    settle: (lineId, write) => settleLine(db, lineId, write),
    markNotOurs: (lineId, audit, refundDue) => markNotOurs(db, lineId, audit, refundDue),
    payRefund: (ids, audit, refundPaid) => payRefund(db, ids, audit, refundPaid),
    refundCandidates: (debit) => refundCandidates(db, debit),
    refundingDebit: (creditId) => refundingDebit(db, creditId),

    list(filter) {
      let q = db.selectFrom("statement_lines").selectAll();
      if (filter.accountId !== undefined) q = q.where("account_id", "=", filter.accountId);
      if (filter.states !== undefined && filter.states.length > 0) q = q.where("state", "in", filter.states);
      if (filter.bookedFrom !== undefined) q = q.where("booked_at", ">=", filter.bookedFrom);
      if (filter.bookedTo !== undefined) q = q.where("booked_at", "<", filter.bookedTo);
      if (filter.before !== undefined) q = q.where("id", "<", filter.before);
      return q.orderBy("id", "desc").limit(filter.limit).execute();
    },
  };
}
