import { type Kysely, type Selectable, sql } from "kysely";
import type { BusinessFacts, InsertResult, NewTransaction } from "../../domain/transaction.js";
import { pendingBoundViolation, uniqueViolation } from "../engine/errors.js";
import { planEachTime, prepared, type StatementRunner } from "../engine/prepared.js";
import type { Database, TransactionTable } from "../schema.js";
import { INSERT_COLUMN_LIST, INSERT_COLUMNS } from "./insert-columns.js";
import { RECORD_NONCE } from "./nonces.js";
import {
  createPgIntakeBatches,
  firmPendingOf,
  type NonceAndFactsInput,
  type NonceAndFactsOutcome,
} from "./transaction-batches.js";
import {
  listTransactions,
  newestTransactionId,
  searchTransactions,
  setNameKeys,
  type TransactionFilter,
  type TransactionSearch,
  withoutNameKey,
} from "./transaction-searches.js";

export type TransactionRow = Selectable<TransactionTable>;

export type { TransactionFilter } from "./transaction-searches.js";
export type { BusinessFacts, InsertResult, NewTransaction };

export interface TransactionRepository {
  /** The three facts the business checks need, read in one round trip. */
  businessFacts(
    firmId: number,
    reference: string,
    userId: string,
    type: TransactionRow["type"],
  ): Promise<BusinessFacts>;
  /**
   * Inserts the transaction. A unique-index conflict is an expected outcome, returned as a value:
   * that is how concurrent requests with one reference or one user are told apart.
   */
  insert(values: NewTransaction): Promise<InsertResult>;
  /**
   * Uses up a request's nonce and reads the business facts, in one round trip on PostgreSQL (the
   * nonce insert is a data-modifying CTE of the facts query). `nonceFresh` is false when the firm
   * had used the nonce already.
   */
  nonceAndFacts(
    nonce: { firmId: number; nonce: string; expiresAt: number },
    facts: { reference: string; userId: string; type: TransactionRow["type"] },
  ): Promise<{ nonceFresh: boolean; facts: BusinessFacts }>;
  findForFirm(firmId: number, id: number): Promise<TransactionRow | undefined>;
  findByReference(firmId: number, reference: string): Promise<TransactionRow | undefined>;
  /** The user's pending deposit at the firm (at most one: transactions_one_pending_uq). */
  pendingDepositOf(firmId: number, userId: string): Promise<TransactionRow | undefined>;
  get(id: number): Promise<TransactionRow | undefined>;
  list(filter: TransactionFilter): Promise<TransactionRow[]>;
  /** The filter for a count, or for more than one call (a page and its total, an export's pages). */
  search(filter: TransactionFilter): TransactionSearch;
  /** The newest transaction's id, 0 on an empty store. */
  newestId(): Promise<number>;
  /**
   * Up to `limit` rows after `afterId` written before `payer_name_key` existed, by id
   * (jobs/name-keys.ts).
   */
  withoutNameKey(afterId: number, limit: number): Promise<NameKeyless[]>;
  /** Stores the name keys of such rows, in one statement; a key already there is kept. */
  setNameKeys(keys: readonly { id: number; key: string }[]): Promise<void>;
}

export type NameKeyless = Pick<TransactionRow, "id" | "first_name" | "middle_name" | "last_name">;

/**
 * The facts in one round trip. `status` is a literal, not a parameter: only then can the
 * planner prove the partial index transactions_one_pending_uq (WHERE status = 'pending') applies;
 * with a bound parameter SQLite scans the whole table. The firm's pending deposits are one probe of
 * `firm_pending`'s key (kept by triggers), never a count of its rows.
 */
const BUSINESS_FACTS = prepared(
  "tx_business_facts",
  `SELECT
     EXISTS (SELECT 1 FROM transactions WHERE firm_id = $1 AND reference = $2) AS r,
     EXISTS (SELECT 1 FROM banned_users WHERE firm_id = $3 AND user_id = $4) AS b,
     EXISTS (SELECT 1 FROM transactions
             WHERE firm_id = $5 AND user_id = $6 AND type = $7 AND status = 'pending') AS p,
     fp.deposits AS pc, fp.amount AS pa
   FROM (SELECT 1 AS one) one LEFT JOIN firm_pending fp ON fp.firm_id = $8`,
  planEachTime,
);

const NONCE_AND_FACTS = prepared(
  "tx_nonce_and_facts",
  `WITH used AS (
     INSERT INTO nonces (firm_id, nonce, expires_at) VALUES ($1, $2, $3)
     ON CONFLICT (firm_id, nonce) DO NOTHING RETURNING 1)
   SELECT
     EXISTS (SELECT 1 FROM used) AS fresh,
     EXISTS (SELECT 1 FROM transactions WHERE firm_id = $4 AND reference = $5) AS r,
     EXISTS (SELECT 1 FROM banned_users WHERE firm_id = $6 AND user_id = $7) AS b,
     EXISTS (SELECT 1 FROM transactions
             WHERE firm_id = $8 AND user_id = $9 AND type = $10 AND status = 'pending') AS p,
     fp.deposits AS pc, fp.amount AS pa
   FROM (SELECT 1 AS one) one LEFT JOIN firm_pending fp ON fp.firm_id = $11`,
  planEachTime,
);

/** The facts' parameters, in their order in BUSINESS_FACTS and after the nonce in NONCE_AND_FACTS. */
function factParams(f: { firmId: number; reference: string; userId: string; type: string }): unknown[] {
  return [f.firmId, f.reference, f.firmId, f.userId, f.firmId, f.userId, f.type, f.firmId];
}

/** A facts row as both stores answer it: the counts may come as text (PostgreSQL's bigint). */
interface FactsRow {
  r: unknown;
  b: unknown;
  p: unknown;
  pc: unknown;
  pa: unknown;
}

const INSERT = prepared(
  "tx_insert",
  `INSERT INTO transactions (${INSERT_COLUMN_LIST})
   VALUES (${INSERT_COLUMNS.map((_c, i) => `$${i + 1}`).join(", ")})
   RETURNING id`,
);

export function createTransactionRepository(
  db: Kysely<Database>,
  runner: StatementRunner,
  dialect: "sqlite" | "postgres",
  /** Off: every call its own statement (the one-row paths batches fall back to; for tests). */
  opts: { batched: boolean } = { batched: true },
): TransactionRepository {
  const factsOf = (row: FactsRow | undefined): BusinessFacts => ({
    // PostgreSQL answers booleans, SQLite 0 and 1.
    referenceUsed: Boolean(row?.r),
    userBanned: Boolean(row?.b),
    pendingExists: Boolean(row?.p),
    firmPending: firmPendingOf(row),
  });

  async function oneNonceAndFacts(input: NonceAndFactsInput): Promise<NonceAndFactsOutcome> {
    const { firmId } = input;
    if (dialect === "postgres") {
      const [row] = await runner.rows<FactsRow & { fresh: boolean }>(NONCE_AND_FACTS, [
        firmId,
        input.nonce,
        input.expiresAt,
        ...factParams(input),
      ]);
      return { nonceFresh: Boolean(row?.fresh), facts: factsOf(row) };
    }
    // SQLite has no data-modifying CTEs: two statements, asked together so that they travel to the
    // store's thread in one message, nonce first (one round trip; asked one after the other they would
    // take two, docs/BENCHMARKS.md). While a unit holds the connection both wait for
    // it, and a unit starting between them can put the read in a later message: still in this order.
    const [changed, [row]] = await Promise.all([
      runner.changes(RECORD_NONCE, [firmId, input.nonce, input.expiresAt]),
      runner.rows<FactsRow>(BUSINESS_FACTS, factParams(input)),
    ]);
    return { nonceFresh: changed === 1, facts: factsOf(row) };
  }

  async function oneInsert(values: NewTransaction): Promise<InsertResult> {
    try {
      const [row] = await runner.rows<{ id: number }>(
        INSERT,
        INSERT_COLUMNS.map(([column]) => values[column] ?? null),
      );
      if (!row) throw new Error("insert returned no id");
      return { ok: true, id: Number(row.id) };
    } catch (err) {
      const conflict = uniqueViolation(err);
      if (conflict === "reference" || conflict === "one_pending") return { ok: false, conflict };
      if (pendingBoundViolation(err)) return { ok: false, conflict: "pending_bound" };
      throw err;
    }
  }

  // On PostgreSQL concurrent requests share these two statements (transaction-batches.ts); the embedded
  // store runs every statement in process, where a batch would save nothing.
  const batches =
    dialect === "postgres" && opts.batched
      ? createPgIntakeBatches(runner, { nonceAndFacts: oneNonceAndFacts, insert: oneInsert })
      : null;

  return {
    async businessFacts(firmId, reference, userId, type) {
      const [row] = await runner.rows<FactsRow>(
        BUSINESS_FACTS,
        factParams({ firmId, reference, userId, type }),
      );
      return factsOf(row);
    },

    nonceAndFacts(nonce, facts) {
      // A literal, not `{ ...nonce, ...facts }`: spreads are slow on Node 20's V8 (intake/intake.ts).
      const input: NonceAndFactsInput = {
        firmId: nonce.firmId,
        nonce: nonce.nonce,
        expiresAt: nonce.expiresAt,
        reference: facts.reference,
        userId: facts.userId,
        type: facts.type,
      };
      return batches ? batches.nonceAndFacts(input) : oneNonceAndFacts(input);
    },

    insert(values) {
      return batches ? batches.insert(values) : oneInsert(values);
    },

    findForFirm(firmId, id) {
      return db
        .selectFrom("transactions")
        .selectAll()
        .where("firm_id", "=", firmId)
        .where("id", "=", id)
        .executeTakeFirst();
    },
    findByReference(firmId, reference) {
      return db
        .selectFrom("transactions")
        .selectAll()
        .where("firm_id", "=", firmId)
        .where("reference", "=", reference)
        .executeTakeFirst();
    },
    pendingDepositOf(firmId, userId) {
      // Literals, as in BUSINESS_FACTS: only then does the partial index serve the lookup.
      return db
        .selectFrom("transactions")
        .selectAll()
        .where("firm_id", "=", firmId)
        .where("user_id", "=", userId)
        .where("type", "=", sql.lit("deposit"))
        .where("status", "=", sql.lit("pending"))
        .executeTakeFirst();
    },
    get(id) {
      return db.selectFrom("transactions").selectAll().where("id", "=", id).executeTakeFirst();
    },
    list: (filter) => listTransactions(db, dialect, filter),
    search: (filter) => searchTransactions(db, dialect, filter),
    newestId: () => newestTransactionId(db),
    withoutNameKey: (afterId, limit) => withoutNameKey(db, afterId, limit),
    setNameKeys: (keys) => setNameKeys(db, dialect, keys),
  };
}
