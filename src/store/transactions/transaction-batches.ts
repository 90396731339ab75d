/**
 * The deposit and withdrawal hot path on PostgreSQL, batched: concurrent requests use up their nonces
 * and read their business facts in one statement, and insert their transactions in another
 * (engine/coalesce.ts). Each statement commits on its own, as a one-row statement would, and the database
 * still has the last word on both money invariants: a row the unique indexes refuse is simply not
 * inserted (ON CONFLICT DO NOTHING) and goes through the one-row insert, which names the index.
 */
import type { BusinessFacts, InsertResult, NewTransaction } from "../../domain/transaction.js";
import { Coalescer } from "../engine/coalesce.js";
import { planEachTime, prepared, type StatementRunner } from "../engine/prepared.js";
import { INSERT_COLUMN_LIST, INSERT_COLUMNS } from "./insert-columns.js";

export interface NonceAndFactsInput {
  firmId: number;
  nonce: string;
  expiresAt: number;
  reference: string;
  userId: string;
  type: "deposit" | "withdrawal";
}

export interface NonceAndFactsOutcome {
  nonceFresh: boolean;
  facts: BusinessFacts;
}

/**
 * One statement of each kind in flight per instance, as in a database's own group commit: whatever
 * arrives meanwhile goes in the next. One in flight gives the largest batches, the least CPU on both
 * sides and the lowest p99 (ADR 0003 compares it with 2, 3 and 6).
 */
const LIMITS = { maxInFlight: 1, maxBatch: 64, timeoutMs: 10_000 };

/**
 * Each fact is a LATERAL subquery with LIMIT 1, so every input row costs three index probes. Written
 * as EXISTS in the select list, the planner may turn a probe into a hashed subplan over the whole
 * table (it cannot know how few rows the arrays hold), which scans `transactions` on every batch. `status = 'pending'` is a literal so the partial index transactions_one_pending_uq applies,
 * and the statement is planned at each execution (engine/prepared.ts, planEachTime).
 */
export const NONCES_AND_FACTS = prepared(
  "tx_nonces_and_facts_batch",
  `WITH input AS (
     SELECT * FROM unnest($1::int[], $2::text[], $3::bigint[], $4::text[], $5::text[], $6::text[])
       WITH ORDINALITY AS i (firm_id, nonce, expires_at, reference, user_id, type, ord)),
   used AS (
     INSERT INTO nonces (firm_id, nonce, expires_at)
     SELECT firm_id, nonce, expires_at FROM input ORDER BY firm_id, nonce
     ON CONFLICT (firm_id, nonce) DO NOTHING RETURNING firm_id, nonce)
   SELECT i.ord, u.nonce IS NOT NULL AS fresh, r.x IS NOT NULL AS r, b.x IS NOT NULL AS b,
     p.x IS NOT NULL AS p, fp.deposits AS pc, fp.amount AS pa
   FROM input i
   LEFT JOIN used u ON u.firm_id = i.firm_id AND u.nonce = i.nonce
   LEFT JOIN firm_pending fp ON fp.firm_id = i.firm_id AND i.type = 'deposit'
   LEFT JOIN LATERAL (SELECT 1 AS x FROM transactions t
     WHERE t.firm_id = i.firm_id AND t.reference = i.reference LIMIT 1) r ON true
   LEFT JOIN LATERAL (SELECT 1 AS x FROM banned_users bu
     WHERE bu.firm_id = i.firm_id AND bu.user_id = i.user_id LIMIT 1) b ON true
   LEFT JOIN LATERAL (SELECT 1 AS x FROM transactions t
     WHERE t.firm_id = i.firm_id AND t.user_id = i.user_id AND t.type = i.type AND t.status = 'pending'
     LIMIT 1) p ON true`,
  planEachTime,
);

/**
 * Rows come back by input position, matched in SQL: only the first row of each (firm, reference),
 * as PostgreSQL compares them, is offered to the insert, so a returned row belongs to exactly one
 * input. (Matching in Node could pair a row with the wrong request: two references that differ as
 * JavaScript strings can be one text in the database, a lone surrogate becoming U+FFFD.) Rows go in
 * key order, so two instances inserting overlapping references wait on each other in one order.
 */
const INSERT_MANY = prepared(
  "tx_insert_batch",
  `WITH input AS (
     SELECT * FROM unnest(${INSERT_COLUMNS.map(([, t], i) => `$${i + 1}::${t}[]`).join(", ")})
       WITH ORDINALITY AS i (${INSERT_COLUMN_LIST}, ord)),
   first AS (
     SELECT DISTINCT ON (firm_id, reference) * FROM input ORDER BY firm_id, reference, ord),
   inserted AS (
     INSERT INTO transactions (${INSERT_COLUMN_LIST})
     SELECT ${INSERT_COLUMN_LIST} FROM first ORDER BY firm_id, reference
     ON CONFLICT DO NOTHING
     RETURNING id, firm_id, reference)
   SELECT f.ord, n.id FROM first f JOIN inserted n ON n.firm_id = f.firm_id AND n.reference = f.reference`,
);

/** The firm's pending deposits from a facts row: none when it has no `firm_pending` row yet. */
export function firmPendingOf(row: { pc: unknown; pa: unknown } | undefined): BusinessFacts["firmPending"] {
  return { count: Number(row?.pc ?? 0), amountMinor: Number(row?.pa ?? 0) };
}

const NO_FACTS: BusinessFacts = {
  referenceUsed: false,
  userBanned: false,
  pendingExists: false,
  firmPending: { count: 0, amountMinor: 0 },
};

/**
 * PostgreSQL answered the statement with an error, so it rolled back as a whole: each input is then
 * tried alone, and only a row that fails alone fails its request. The codes: data exceptions (22)
 * and integrity violations (23, a CHECK for instance), caused by one row; a deadlock or
 * serialization failure (40), possible when two instances insert overlapping rows; a lock or
 * statement timeout (55P03, 57014). Anything else (a lost connection, a timeout in Node) fails the
 * batch: whether it committed is unknown, and trying again could answer a created deposit as a
 * duplicate. Those requests answer 500, and the merchant's query by reference finds out.
 */
export function rolledBack(err: unknown): boolean {
  const code = (err as { code?: unknown })?.code;
  if (typeof code !== "string") return false;
  return /^(22|23|40)/.test(code) || code === "55P03" || code === "57014";
}

export function createPgIntakeBatches(
  runner: StatementRunner,
  one: {
    nonceAndFacts(input: NonceAndFactsInput): Promise<NonceAndFactsOutcome>;
    insert(values: NewTransaction): Promise<InsertResult>;
  },
): {
  nonceAndFacts(input: NonceAndFactsInput): Promise<NonceAndFactsOutcome>;
  insert(values: NewTransaction): Promise<InsertResult>;
} {
  const nonces = new Coalescer<NonceAndFactsInput, NonceAndFactsOutcome>(async (inputs) => {
    // A nonce twice in one batch: the first use decides, every later one is a replay. The statement
    // never sees a key twice (ON CONFLICT cannot tell two new rows of one statement apart).
    const seen = new Set<string>();
    const unique: NonceAndFactsInput[] = [];
    const position = inputs.map((input) => {
      const key = `${input.firmId}\u0000${input.nonce}`;
      if (seen.has(key)) return -1;
      seen.add(key);
      return unique.push(input) - 1;
    });
    let rows: { ord: string; fresh: boolean; r: boolean; b: boolean; p: boolean; pc: unknown; pa: unknown }[];
    try {
      rows = await runner.rows(NONCES_AND_FACTS, [
        unique.map((u) => u.firmId),
        unique.map((u) => u.nonce),
        unique.map((u) => u.expiresAt),
        unique.map((u) => u.reference),
        unique.map((u) => u.userId),
        unique.map((u) => u.type),
      ]);
    } catch (err) {
      if (!rolledBack(err)) throw err;
      return inputs.map((input, i) => (position[i] === -1 ? replay() : one.nonceAndFacts(input)));
    }
    const byOrd = new Map(rows.map((row) => [Number(row.ord), row]));
    return position.map((p) => {
      if (p === -1) return replay();
      const row = byOrd.get(p + 1);
      if (!row) throw new Error(`batch answered no row for input ${p + 1}`);
      return {
        nonceFresh: row.fresh,
        facts: {
          referenceUsed: row.r,
          userBanned: row.b,
          pendingExists: row.p,
          firmPending: firmPendingOf(row),
        },
      };
    });
  }, LIMITS);

  const inserts = new Coalescer<NewTransaction, InsertResult>(async (inputs) => {
    let rows: { ord: string | number; id: string | number }[];
    try {
      rows = await runner.rows(
        INSERT_MANY,
        INSERT_COLUMNS.map(([column]) => inputs.map((values) => values[column] ?? null)),
      );
    } catch (err) {
      if (!rolledBack(err)) throw err;
      return inputs.map((values) => one.insert(values));
    }
    const ids = new Map(rows.map((row) => [Number(row.ord), Number(row.id)]));
    return inputs.map((values, i) => {
      const id = ids.get(i + 1);
      // Not inserted: refused by a unique index, or a later row of this batch with a reference
      // already in it. The one-row insert names the index, or succeeds if the row it met has been
      // decided meanwhile (or was the refused first row of this batch).
      return id === undefined ? one.insert(values) : ({ ok: true, id } as const);
    });
  }, LIMITS);

  return {
    nonceAndFacts: (input) => nonces.submit(input),
    insert: (values) => inserts.submit(values),
  };
}

function replay(): NonceAndFactsOutcome {
  return { nonceFresh: false, facts: NO_FACTS };
}
