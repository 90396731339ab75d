import { type Insertable, type Kysely, type Selectable, sql } from "kysely";
import { uniqueViolation } from "./errors.js";
import { INSERT_COLUMN_LIST, INSERT_COLUMNS } from "./insert-columns.js";
import { RECORD_NONCE } from "./nonces.js";
import {
  createPgIntakeBatches,
  type NonceAndFactsInput,
  type NonceAndFactsOutcome,
} from "./pg-intake-batches.js";
import { planEachTime, prepared, type StatementRunner } from "./prepared.js";
import { type Database, MAX_INTEGER_ID, type TransactionTable } from "./schema.js";

export type TransactionRow = Selectable<TransactionTable>;
export type NewTransaction = Omit<Insertable<TransactionTable>, "id">;

export interface BusinessFacts {
  referenceUsed: boolean;
  userBanned: boolean;
  pendingExists: boolean;
}

export type InsertResult = { ok: true; id: number } | { ok: false; conflict: "reference" | "one_pending" };

export interface TransactionFilter {
  firmId?: number;
  status?: TransactionRow["status"];
  type?: TransactionRow["type"];
  /** Newest first by default. */
  order?: "newest" | "oldest";
  limit?: number;
  id?: number;
  reference?: string;
  userId?: string;
  username?: string;
  /**
   * Matches the withdrawal IBAN or the assigned IBAN of a deposit, as written or not: spaces,
   * dashes and letter case are ignored on both sides (ibanKey).
   */
  iban?: string;
  /**
   * The amount exactly, in minor units: the one decided or the one asked for (a payer who sent
   * another sum than asked is found by the statement's sum once an operator approved it as sent).
   */
  amountMinor?: number;
  /**
   * How the payout is to be sent: an operator pays FAST ones now and EFT ones within the banks'
   * EFT hours. A withdrawal stored without one (before methods were kept) is FAST (methodOf).
   */
  method?: "fast" | "eft" | "havale";
  /**
   * Folded words (domain/name-search.ts), each of which must begin a word of the payer's name, in
   * any order.
   */
  nameWords?: readonly string[];
  /** Created at or after / before, epoch ms. */
  from?: number;
  to?: number;
  /** Leave out test (sandbox) firms' transactions: operators never decide those. */
  liveOnly?: boolean;
}

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
  /** Counts and volumes per type and status of transactions created since `since`. */
  totalsSince(
    since: number,
  ): Promise<{ type: string; status: string; hour: number; count: number; volume: number }[]>;
  /** Milliseconds from creation to decision of transactions decided since `since` (at most 10,000). */
  decisionTimesSince(since: number): Promise<number[]>;
  findForFirm(firmId: number, id: number): Promise<TransactionRow | undefined>;
  findByReference(firmId: number, reference: string): Promise<TransactionRow | undefined>;
  /** The user's pending deposit at the firm (at most one: transactions_one_pending_uq). */
  pendingDepositOf(firmId: number, userId: string): Promise<TransactionRow | undefined>;
  get(id: number): Promise<TransactionRow | undefined>;
  list(filter: TransactionFilter): Promise<TransactionRow[]>;
  /** How many rows `list` would give without its limit. */
  count(filter: TransactionFilter): Promise<number>;
  /** Live firms' pending transactions of each type: how many, and when the oldest was created. */
  pendingQueues(): Promise<{ type: string; count: number; oldestAt: number | null }[]>;
  /**
   * Up to `limit` rows after `afterId` written before `payer_name_key` existed, by id
   * (lifecycle/name-keys.ts).
   */
  withoutNameKey(afterId: number, limit: number): Promise<NameKeyless[]>;
  /** Stores the name keys of such rows, in one statement; a key already there is kept. */
  setNameKeys(keys: readonly { id: number; key: string }[]): Promise<void>;
}

export type NameKeyless = Pick<TransactionRow, "id" | "first_name" | "middle_name" | "last_name">;

/**
 * The three facts in one round trip. `status` is a literal, not a parameter: only then can the
 * planner prove the partial index transactions_one_pending_uq (WHERE status = 'pending') applies;
 * with a bound parameter SQLite scans the whole table.
 */
const BUSINESS_FACTS = prepared(
  "tx_business_facts",
  `SELECT
     EXISTS (SELECT 1 FROM transactions WHERE firm_id = $1 AND reference = $2) AS r,
     EXISTS (SELECT 1 FROM banned_users WHERE firm_id = $3 AND user_id = $4) AS b,
     EXISTS (SELECT 1 FROM transactions
             WHERE firm_id = $5 AND user_id = $6 AND type = $7 AND status = 'pending') AS p`,
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
             WHERE firm_id = $8 AND user_id = $9 AND type = $10 AND status = 'pending') AS p`,
  planEachTime,
);

/** The facts' parameters, in their order in BUSINESS_FACTS and after the nonce in NONCE_AND_FACTS. */
function factParams(f: { firmId: number; reference: string; userId: string; type: string }): unknown[] {
  return [f.firmId, f.reference, f.firmId, f.userId, f.firmId, f.userId, f.type];
}

const INSERT = prepared(
  "tx_insert",
  `INSERT INTO transactions (${INSERT_COLUMN_LIST})
   VALUES (${INSERT_COLUMNS.map((_c, i) => `$${i + 1}`).join(", ")})
   RETURNING id`,
);

/**
 * What an IBAN as compared in a search leaves out: every kind of space (a no-break or narrow one too:
 * pasted from a web page or a PDF statement) and dashes; letter case is folded too. A withdrawal's
 * IBAN is stored as the merchant sent it (never refused, the contract), often grouped or in lower
 * case ("tr33 0006 1005 …"), and the console shows it grouped for reading: compared as written, an
 * operator who pasted either form found nothing. Control characters never reach the store (intake
 * drops them, domain/requests.ts). One list for both sides, so the typed and the stored IBAN are
 * cleaned alike (JavaScript's \s and SQL's replace() would not agree by themselves).
 */
const IBAN_GAPS = [
  " ",
  "-",
  "\u00a0",
  "\u1680",
  ...Array.from({ length: 11 }, (_, i) => String.fromCharCode(0x2000 + i)),
  // Zero-width space and word joiner: invisible, and pasted with an IBAN from a web page.
  "\u200b",
  "\u2060",
  "\u2028",
  "\u2029",
  "\u202f",
  "\u205f",
  "\u3000",
  "\ufeff",
];
// The dash escaped: between two characters of a class it would make a range.
const IBAN_GAP_PATTERN = new RegExp(`[${IBAN_GAPS.map((g) => (g === "-" ? "\\-" : g)).join("")}]+`, "gu");

function ibanKey(iban: string): string {
  return iban.replace(IBAN_GAP_PATTERN, "").toUpperCase();
}
/** ibanKey in SQL, the same in SQLite and PostgreSQL (no index is lost: the IBANs have none). */
const storedIbanKey = (column: "iban" | "assigned_iban") =>
  sql<string>`upper(${IBAN_GAPS.reduce(
    (inner, gap) => sql`replace(${inner}, ${gap}, '')`,
    sql`${sql.ref(column)}`,
  )})`;

/** The rows a filter selects (TransactionFilter), for a page of them or their count. */
function filterTransactions(db: Kysely<Database>, filter: TransactionFilter) {
  let q = db.selectFrom("transactions");
  if (filter.firmId !== undefined) q = q.where("firm_id", "=", filter.firmId);
  if (filter.status !== undefined) q = q.where("status", "=", filter.status);
  if (filter.type !== undefined) q = q.where("type", "=", filter.type);
  if (filter.id !== undefined) q = q.where("id", "=", filter.id);
  if (filter.reference !== undefined) q = q.where("reference", "=", filter.reference);
  if (filter.userId !== undefined) q = q.where("user_id", "=", filter.userId);
  if (filter.username !== undefined) q = q.where("username", "=", filter.username);
  if (filter.iban !== undefined) {
    const iban = ibanKey(filter.iban);
    q = q.where((eb) =>
      eb.or([eb(storedIbanKey("iban"), "=", iban), eb(storedIbanKey("assigned_iban"), "=", iban)]),
    );
  }
  if (filter.amountMinor !== undefined) {
    const minor = filter.amountMinor;
    q = q.where((eb) => eb.or([eb("amount", "=", minor), eb("original_amount", "=", minor)]));
  }
  if (filter.method === "fast")
    q = q.where((eb) => eb.or([eb("method", "=", "fast"), eb("method", "is", null)]));
  else if (filter.method !== undefined) q = q.where("method", "=", filter.method);
  // The key starts each word with a space; words are letters and digits only (no LIKE wildcards).
  for (const word of filter.nameWords ?? []) q = q.where("payer_name_key", "like", `% ${word}%`);
  if (filter.from !== undefined) q = q.where("created_at", ">=", filter.from);
  if (filter.to !== undefined) q = q.where("created_at", "<", filter.to);
  if (filter.liveOnly)
    q = q.where("firm_id", "not in", (eb) => eb.selectFrom("firms").select("id").where("sandbox", "=", 1));
  return q;
}

export function createTransactionRepository(
  db: Kysely<Database>,
  statements: StatementRunner,
  dialect: "sqlite" | "postgres",
  /** Off: every call its own statement (the one-row paths batches fall back to; for tests). */
  opts: { batched: boolean } = { batched: true },
): TransactionRepository {
  const filtered = (filter: TransactionFilter) => filterTransactions(db, filter);
  const factsOf = (row: { r: unknown; b: unknown; p: unknown } | undefined): BusinessFacts => ({
    // PostgreSQL answers booleans, SQLite 0 and 1.
    referenceUsed: Boolean(row?.r),
    userBanned: Boolean(row?.b),
    pendingExists: Boolean(row?.p),
  });

  async function oneNonceAndFacts(input: NonceAndFactsInput): Promise<NonceAndFactsOutcome> {
    const { firmId } = input;
    if (dialect === "postgres") {
      const [row] = await statements.rows<{ fresh: boolean; r: unknown; b: unknown; p: unknown }>(
        NONCE_AND_FACTS,
        [firmId, input.nonce, input.expiresAt, ...factParams(input)],
      );
      return { nonceFresh: Boolean(row?.fresh), facts: factsOf(row) };
    }
    // SQLite has no data-modifying CTEs: two statements, asked together so that they travel to the
    // store's thread in one message, nonce first (one round trip; asked one after the other they took
    // two, a third of a deposit's wait for the store). While a unit holds the connection both wait for
    // it, and a unit starting between them can put the read in a later message: still in this order.
    const [changed, [row]] = await Promise.all([
      statements.changes(RECORD_NONCE, [firmId, input.nonce, input.expiresAt]),
      statements.rows<{ r: unknown; b: unknown; p: unknown }>(BUSINESS_FACTS, factParams(input)),
    ]);
    return { nonceFresh: changed === 1, facts: factsOf(row) };
  }

  async function oneInsert(values: NewTransaction): Promise<InsertResult> {
    try {
      const [row] = await statements.rows<{ id: number }>(
        INSERT,
        INSERT_COLUMNS.map(([column]) => values[column] ?? null),
      );
      if (!row) throw new Error("insert returned no id");
      return { ok: true, id: Number(row.id) };
    } catch (err) {
      const conflict = uniqueViolation(err);
      if (conflict === "reference" || conflict === "one_pending") return { ok: false, conflict };
      throw err;
    }
  }

  // On PostgreSQL concurrent requests share these two statements (pg-intake-batches.ts); the embedded
  // store runs every statement in process, where a batch would save nothing.
  const batches =
    dialect === "postgres" && opts.batched
      ? createPgIntakeBatches(statements, { nonceAndFacts: oneNonceAndFacts, insert: oneInsert })
      : null;

  return {
    async businessFacts(firmId, reference, userId, type) {
      const [row] = await statements.rows<{ r: unknown; b: unknown; p: unknown }>(
        BUSINESS_FACTS,
        factParams({ firmId, reference, userId, type }),
      );
      return factsOf(row);
    },

    nonceAndFacts(nonce, facts) {
      // A literal, not `{ ...nonce, ...facts }`: spreads are slow on Node 20's V8 (domain/intake.ts).
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

    async totalsSince(since) {
      const rows = await db
        .selectFrom("transactions")
        .select([
          "type",
          "status",
          // Whole hours since `since` (better-sqlite3 binds numbers as REAL, hence the cast).
          sql<number>`CAST((created_at - ${since}) / 3600000 AS INTEGER)`.as("hour"),
          (eb) => eb.fn.countAll<number>().as("count"),
          (eb) => eb.fn.sum<number>("amount").as("volume"),
        ])
        .where("created_at", ">=", since)
        // Test firms' traffic is not business: the operators' summary leaves it out.
        .where("firm_id", "not in", (eb) => eb.selectFrom("firms").select("id").where("sandbox", "=", 1))
        .groupBy(["type", "status", "hour"])
        .execute();
      return rows.map((r) => ({
        type: r.type,
        status: r.status,
        hour: Number(r.hour),
        count: Number(r.count),
        volume: Number(r.volume ?? 0),
      }));
    },

    async decisionTimesSince(since) {
      const rows = await db
        .selectFrom("transactions")
        .select(["created_at", "decided_at"])
        .where("decided_at", ">=", since)
        .where("firm_id", "not in", (eb) => eb.selectFrom("firms").select("id").where("sandbox", "=", 1))
        .orderBy("decided_at", "desc")
        .limit(10_000)
        .execute();
      return rows.map((r) => Number(r.decided_at) - Number(r.created_at));
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
    async list(filter) {
      if (filter.firmId !== undefined && filter.firmId > MAX_INTEGER_ID) return [];
      return (
        filtered(filter)
          .selectAll()
          .orderBy("id", filter.order === "oldest" ? "asc" : "desc")
          // Searches ask for at most 1,000 (their schemas say so); the console's CSV export for 50,000.
          .limit(Math.min(filter.limit ?? 100, 50_000))
          .execute()
      );
    },
    async count(filter) {
      if (filter.firmId !== undefined && filter.firmId > MAX_INTEGER_ID) return 0;
      const row = await filtered(filter)
        .select((eb) => eb.fn.countAll<number>().as("n"))
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },
    async pendingQueues() {
      // Through transactions_status_idx (status, created_at): the pending rows only, however old.
      const rows = await db
        .selectFrom("transactions")
        .select([
          "type",
          (eb) => eb.fn.countAll<number>().as("count"),
          (eb) => eb.fn.min<number>("created_at").as("oldest"),
        ])
        .where("status", "=", "pending")
        .where("firm_id", "not in", (eb) => eb.selectFrom("firms").select("id").where("sandbox", "=", 1))
        .groupBy("type")
        .execute();
      return rows.map((r) => ({
        type: r.type,
        count: Number(r.count),
        oldestAt: r.oldest === null ? null : Number(r.oldest),
      }));
    },
    withoutNameKey(afterId, limit) {
      return db
        .selectFrom("transactions")
        .select(["id", "first_name", "middle_name", "last_name"])
        .where("id", ">", afterId)
        .where("payer_name_key", "is", null)
        .orderBy("id")
        .limit(limit)
        .execute();
    },
    async setNameKeys(keys) {
      if (keys.length === 0) return;
      // One statement per batch on both stores: a statement per row was a round trip per row
      // (measured: about 150 µs a row on PostgreSQL, 93 µs on SQLite through its thread).
      if (dialect === "postgres") {
        await sql`UPDATE transactions AS t SET payer_name_key = v.key
          FROM unnest(${keys.map((k) => k.id)}::bigint[], ${keys.map((k) => k.key)}::text[]) AS v(id, key)
          WHERE t.id = v.id AND t.payer_name_key IS NULL`.execute(db);
        return;
      }
      const pairs = JSON.stringify(keys.map((k) => [k.id, k.key]));
      await sql`UPDATE transactions AS t SET payer_name_key = v.key
        FROM (SELECT value ->> 0 AS id, value ->> 1 AS key FROM json_each(${pairs})) AS v
        WHERE t.id = v.id AND t.payer_name_key IS NULL`.execute(db);
    },
  };
}
