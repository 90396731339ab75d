import { type Insertable, type Kysely, type Selectable, sql } from "kysely";
import { uniqueViolation } from "./errors.js";
import type { Database, TransactionTable } from "./schema.js";

export type TransactionRow = Selectable<TransactionTable>;
export type NewTransaction = Omit<Insertable<TransactionTable>, "id">;

export interface BusinessFacts {
  referenceUsed: boolean;
  userBanned: boolean;
  pendingExists: boolean;
}

export type InsertResult =
  | { ok: true; row: TransactionRow }
  | { ok: false; conflict: "reference" | "one_pending" };

export interface TransactionFilter {
  firmId?: number;
  status?: TransactionRow["status"];
  limit?: number;
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
   * Inserts the transaction; when it routes a deposit to an account, the account's rotation stamp
   * moves in the same database transaction. A unique-index conflict is an expected outcome, returned
   * as a value: that is how concurrent requests with one reference or one user are told apart.
   */
  insert(
    values: NewTransaction,
    assignment: { accountId: number; stamp: number } | null,
  ): Promise<InsertResult>;
  findForFirm(firmId: number, id: number): Promise<TransactionRow | undefined>;
  findByReference(firmId: number, reference: string): Promise<TransactionRow | undefined>;
  get(id: number): Promise<TransactionRow | undefined>;
  list(filter: TransactionFilter): Promise<TransactionRow[]>;
}

export function createTransactionRepository(
  db: Kysely<Database>,
  dialect: "sqlite" | "postgres",
): TransactionRepository {
  /**
   * PostgreSQL does both writes in one statement (a data-modifying CTE): one round trip, atomic.
   * SQLite has no DML in CTEs; there the two statements share a SAVEPOINT in the current batch.
   */
  async function insertAndTouch(
    values: NewTransaction,
    assignment: { accountId: number; stamp: number } | null,
  ): Promise<TransactionRow> {
    if (assignment === null) {
      return db.insertInto("transactions").values(values).returningAll().executeTakeFirstOrThrow();
    }
    if (dialect === "postgres") {
      return db
        .with("touched", (q) =>
          q
            .updateTable("payment_accounts")
            .set({ last_assigned_at: assignment.stamp })
            .where("id", "=", assignment.accountId)
            .returning("id"),
        )
        .insertInto("transactions")
        .values(values)
        .returningAll()
        .executeTakeFirstOrThrow();
    }
    return db.transaction().execute(async (trx) => {
      const inserted = await trx
        .insertInto("transactions")
        .values(values)
        .returningAll()
        .executeTakeFirstOrThrow();
      await trx
        .updateTable("payment_accounts")
        .set({ last_assigned_at: assignment.stamp })
        .where("id", "=", assignment.accountId)
        .execute();
      return inserted;
    });
  }

  return {
    async businessFacts(firmId, reference, userId, type) {
      const row = await db
        .selectNoFrom((eb) => [
          eb
            .exists(
              eb
                .selectFrom("transactions")
                .select(sql.lit(1).as("x"))
                .where("firm_id", "=", firmId)
                .where("reference", "=", reference),
            )
            .as("reference_used"),
          eb
            .exists(
              eb
                .selectFrom("banned_users")
                .select(sql.lit(1).as("x"))
                .where("firm_id", "=", firmId)
                .where("user_id", "=", userId),
            )
            .as("user_banned"),
          eb
            .exists(
              eb
                .selectFrom("transactions")
                .select(sql.lit(1).as("x"))
                .where("firm_id", "=", firmId)
                .where("user_id", "=", userId)
                .where("type", "=", type)
                // A literal, not a parameter: only then can the planner prove the partial index
                // transactions_one_pending_uq (WHERE status = 'pending') applies. With a bound
                // parameter SQLite scans the whole table.
                .where("status", "=", sql.lit("pending")),
            )
            .as("pending_exists"),
        ])
        .executeTakeFirstOrThrow();
      return {
        referenceUsed: Boolean(row.reference_used),
        userBanned: Boolean(row.user_banned),
        pendingExists: Boolean(row.pending_exists),
      };
    },

    async insert(values, assignment) {
      try {
        return { ok: true, row: await insertAndTouch(values, assignment) };
      } catch (err) {
        const conflict = uniqueViolation(err);
        if (conflict === "reference" || conflict === "one_pending") return { ok: false, conflict };
        throw err;
      }
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
    get(id) {
      return db.selectFrom("transactions").selectAll().where("id", "=", id).executeTakeFirst();
    },
    list(filter) {
      let q = db.selectFrom("transactions").selectAll();
      if (filter.firmId !== undefined) q = q.where("firm_id", "=", filter.firmId);
      if (filter.status !== undefined) q = q.where("status", "=", filter.status);
      return q
        .orderBy("id", "desc")
        .limit(Math.min(filter.limit ?? 100, 1000))
        .execute();
    },
  };
}
