/**
 * Changes that write their audit row in the same database transaction: the audit log can never
 * miss a change that happened, nor show one that did not. Secrets never enter the log: a sealed
 * secret, a password hash or an authenticator secret is recorded as the word "set", "rotated" or
 * "removed".
 */
import type { Insertable, Kysely, Selectable, Transaction, Updateable } from "kysely";
import { checkViolation, uniqueViolation } from "./engine/errors.js";
import type { AuditLogTable, Database } from "./schema.js";

export interface AuditEntry {
  actor: string;
  action: string;
  at: number;
}

export type AuditRow = Selectable<AuditLogTable>;

export interface AuditFilter {
  actor?: string;
  action?: string;
  entityType?: string;
  entityId?: string;
  from?: number;
  to?: number;
  limit?: number;
}

/** The tables whose rows people manage, and the entity name each has in the log. */
const ENTITY = {
  providers: "provider",
  firms: "firm",
  payment_accounts: "account",
  channels: "channel",
  operators: "operator",
} as const;
type Managed = keyof typeof ENTITY;

/**
 * Columns the log never shows, by the name it gives them instead (null: not mentioned at all, for a
 * secret still being set up, which changes nothing until it is confirmed).
 */
const HIDDEN = new Map<string, string | null>([
  ["secret_sealed", "secret"],
  ["feed_secret_sealed", "feed_secret"],
  ["feed_last_at", null],
  ["password_hash", "password"],
  ["totp_sealed", "second_factor"],
  ["totp_pending_sealed", null],
  ["totp_last_step", null],
]);

type Row = Record<string, unknown>;

/** The row as the log may show it: hidden columns become a word saying what happened to them. */
function visible(row: Row, hiddenAs: string): Row {
  const out: Row = {};
  for (const [k, v] of Object.entries(row)) {
    if (HIDDEN.has(k)) {
      const label = HIDDEN.get(k);
      if (v !== null && label) out[label] = hiddenAs;
    } else if (k !== "updated_at" && k !== "created_at") out[k] = v;
  }
  return out;
}

function diff(before: Row, after: Row, keys: readonly string[]): { before: Row; after: Row } {
  const b: Row = {};
  const a: Row = {};
  for (const k of keys) {
    if (k === "updated_at" || before[k] === after[k]) continue;
    if (HIDDEN.has(k)) {
      const label = HIDDEN.get(k);
      if (label) a[label] = after[k] === null ? "removed" : before[k] === null ? "set" : "rotated";
      continue;
    }
    b[k] = before[k];
    a[k] = after[k];
  }
  return { before: b, after: a };
}

/** One audit row, in whatever transaction `trx` is (the store's other writers use it too). */
export async function writeAudit(
  trx: Kysely<Database> | Transaction<Database>,
  audit: AuditEntry,
  entityType: string,
  entityId: string,
  before: Row | null,
  after: Row | null,
) {
  await trx
    .insertInto("audit_log")
    .values({
      actor: audit.actor,
      action: audit.action,
      entity_type: entityType,
      entity_id: entityId,
      before_json: before === null ? null : JSON.stringify(before),
      after_json: after === null ? null : JSON.stringify(after),
      at: audit.at,
    })
    .execute();
}

export function createAuditedChanges(db: Kysely<Database>, dialect: "sqlite" | "postgres") {
  return {
    insert: <T extends Managed>(
      table: T,
      values: Insertable<Database[T]>,
      audit: AuditEntry,
      withId?: (id: number) => Updateable<Database[T]>,
    ) => insert(db, table, values, audit, withId),

    /** As insert, but undefined when a unique index refuses the row (a concurrent duplicate). */
    async insertUnique<T extends Managed>(
      table: T,
      values: Insertable<Database[T]>,
      audit: AuditEntry,
      withId?: (id: number) => Updateable<Database[T]>,
    ) {
      try {
        return await insert(db, table, values, audit, withId);
      } catch (err) {
        if (uniqueViolation(err)) return undefined;
        throw err;
      }
    },

    /** Updates a managed row and logs what changed, before and after; undefined when no such row. */
    update<T extends Managed>(table: T, id: number, changes: Updateable<Database[T]>, audit: AuditEntry) {
      return db.transaction().execute((trx) => updateIn(trx, dialect, table, id, changes, audit));
    },

    /**
     * As update, but "refused" when a CHECK constraint refuses the result: two changes made at once
     * that are each fine alone (one raises the minimum, the other lowers the maximum) meet here.
     * Nothing is written then, audit line included.
     */
    async updateChecked<T extends Managed>(
      table: T,
      id: number,
      changes: Updateable<Database[T]>,
      audit: AuditEntry,
    ): Promise<Selectable<Database[T]> | undefined | "refused"> {
      try {
        return await db.transaction().execute((trx) => updateIn(trx, dialect, table, id, changes, audit));
      } catch (err) {
        if (checkViolation(err)) return "refused";
        throw err;
      }
    },

    updateOperator: (id: number, changes: Updateable<Database["operators"]>, audit: AuditEntry) =>
      updateOperatorKeepingAnAdmin(db, dialect, id, changes, audit),
    ban: (firmId: number, userId: string, banned: boolean, audit: AuditEntry) =>
      setBan(db, firmId, userId, banned, audit),

    /** An event with no row of its own behind it (a channel's breaker opening, for one). */
    async event(
      audit: AuditEntry,
      entityType: string,
      entityId: string,
      before: Row | null,
      after: Row | null,
    ) {
      await writeAudit(db, audit, entityType, entityId, before, after);
    },

    list: (filter: AuditFilter) => listAudit(db, filter),
  };
}

export type AuditedChanges = ReturnType<typeof createAuditedChanges>;

/**
 * Inserts a managed row and logs it (hidden columns as "set"). `withId`: columns that need the new
 * row's id (a secret sealed for its row, crypto/seal-context.ts), written in the same transaction,
 * so the row is never seen, committed or logged without them.
 */
function insert<T extends Managed>(
  db: Kysely<Database>,
  table: T,
  values: Insertable<Database[T]>,
  audit: AuditEntry,
  withId?: (id: number) => Updateable<Database[T]>,
) {
  return db.transaction().execute(async (trx) => {
    let row = (await trx
      .insertInto(table as "firms")
      .values(values as Insertable<Database["firms"]>)
      .returningAll()
      .executeTakeFirstOrThrow()) as Row;
    if (withId)
      row = (await trx
        .updateTable(table as "firms")
        .set(withId(row.id as number) as Updateable<Database["firms"]>)
        .where("id", "=", row.id as number)
        .returningAll()
        .executeTakeFirstOrThrow()) as Row;
    await writeAudit(trx, audit, ENTITY[table], String(row.id), null, visible(row, "set"));
    return row as Selectable<Database[T]>;
  });
}

/** A managed row updated in `trx` and what changed logged; undefined when there is no such row. */
async function updateIn<T extends Managed>(
  trx: Transaction<Database>,
  dialect: "sqlite" | "postgres",
  table: T,
  id: number,
  changes: Updateable<Database[T]>,
  audit: AuditEntry,
) {
  // Locked on PostgreSQL so that two concurrent changes each log the state the other left;
  // SQLite runs one writing transaction at a time anyway. NO KEY UPDATE (ids never change): the
  // key-share locks that deposits take on their firm and account rows as they are inserted are
  // not held up by an operator's edit.
  const select = trx
    .selectFrom(table as "firms")
    .selectAll()
    .where("id", "=", id);
  const before = (await (dialect === "postgres" ? select.forNoKeyUpdate() : select).executeTakeFirst()) as
    | Row
    | undefined;
  if (!before) return undefined;
  const after = (await trx
    .updateTable(table as "firms")
    .set(changes as Updateable<Database["firms"]>)
    .where("id", "=", id)
    .returningAll()
    .executeTakeFirstOrThrow()) as Row;
  const keys = Object.keys(changes).filter((k) => (changes as Row)[k] !== undefined);
  const d = diff(before, after, keys);
  // Saving a form unchanged is not a change worth a line in the log.
  if (Object.keys(d.after).length > 0)
    await writeAudit(trx, audit, ENTITY[table], String(id), d.before, d.after);
  return after as Selectable<Database[T]>;
}

/**
 * Changes an operator, refusing to leave no active admin: the active admins are locked first,
 * so two admins demoting each other at once cannot both succeed.
 */
function updateOperatorKeepingAnAdmin(
  db: Kysely<Database>,
  dialect: "sqlite" | "postgres",
  id: number,
  changes: Updateable<Database["operators"]>,
  audit: AuditEntry,
) {
  return db.transaction().execute(async (trx) => {
    const demotes = changes.active === 0 || (changes.role !== undefined && changes.role !== "admin");
    if (demotes) {
      const select = trx
        .selectFrom("operators")
        .select("id")
        .where("role", "=", "admin")
        .where("active", "=", 1);
      const admins = await (dialect === "postgres" ? select.forUpdate() : select).execute();
      if (admins.some((a) => a.id === id) && admins.length <= 1) return "last_admin" as const;
    }
    return updateIn(trx, dialect, "operators", id, changes, audit);
  });
}

/** Bans or lifts a ban; logs only when something changed. True when it did. */
function setBan(db: Kysely<Database>, firmId: number, userId: string, banned: boolean, audit: AuditEntry) {
  return db.transaction().execute(async (trx) => {
    const changed = banned
      ? (
          await trx
            .insertInto("banned_users")
            .values({ firm_id: firmId, user_id: userId, created_at: audit.at })
            .onConflict((oc) => oc.columns(["firm_id", "user_id"]).doNothing())
            .executeTakeFirst()
        ).numInsertedOrUpdatedRows !== 0n
      : Number(
          (
            await trx
              .deleteFrom("banned_users")
              .where("firm_id", "=", firmId)
              .where("user_id", "=", userId)
              .executeTakeFirst()
          ).numDeletedRows,
        ) > 0;
    if (changed) {
      await writeAudit(trx, audit, "ban", `${firmId}:${userId}`, { banned: !banned }, { banned });
    }
    return changed;
  });
}

function listAudit(db: Kysely<Database>, filter: AuditFilter): Promise<AuditRow[]> {
  let q = db.selectFrom("audit_log").selectAll();
  if (filter.actor !== undefined) q = q.where("actor", "=", filter.actor);
  if (filter.action !== undefined) q = q.where("action", "=", filter.action);
  if (filter.entityType !== undefined) q = q.where("entity_type", "=", filter.entityType);
  if (filter.entityId !== undefined) q = q.where("entity_id", "=", filter.entityId);
  if (filter.from !== undefined) q = q.where("at", ">=", filter.from);
  if (filter.to !== undefined) q = q.where("at", "<", filter.to);
  return q
    .orderBy("id", "desc")
    .limit(Math.min(filter.limit ?? 100, 1000))
    .execute();
}
