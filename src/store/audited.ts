import type { Kysely, Updateable } from "kysely";
import type { AccountRow } from "./accounts.js";
import type { FirmRow } from "./firms.js";
import type { Database, FirmTable, PaymentAccountTable } from "./schema.js";

/**
 * Changes that write their audit row in the same database transaction: the audit log can never
 * miss a change that happened, nor show one that did not. Secrets never enter the log: a changed
 * secret is recorded as `"secret": "rotated"`.
 */
export interface AuditEntry {
  actor: string;
  action: string;
  at: number;
}

type Row = Record<string, unknown>;

function diff(before: Row, after: Row, keys: readonly string[]): { before: Row; after: Row } {
  const b: Row = {};
  const a: Row = {};
  for (const k of keys) {
    if (k === "updated_at" || before[k] === after[k]) continue;
    if (k === "secret_sealed") {
      a.secret = "rotated";
      continue;
    }
    b[k] = before[k];
    a[k] = after[k];
  }
  return { before: b, after: a };
}

export function createAuditedChanges(db: Kysely<Database>) {
  async function change<T extends "firms" | "payment_accounts">(
    table: T,
    entityType: string,
    id: number,
    changes: T extends "firms" ? Updateable<FirmTable> : Updateable<PaymentAccountTable>,
    audit: AuditEntry,
  ) {
    return db.transaction().execute(async (trx) => {
      const before = (await trx
        .selectFrom(table as "firms")
        .selectAll()
        .where("id", "=", id)
        .executeTakeFirst()) as Row | undefined;
      if (!before) return undefined;
      const after = (await trx
        .updateTable(table as "firms")
        .set(changes as Updateable<FirmTable>)
        .where("id", "=", id)
        .returningAll()
        .executeTakeFirstOrThrow()) as Row;
      const d = diff(before, after, Object.keys(changes));
      await trx
        .insertInto("audit_log")
        .values({
          actor: audit.actor,
          action: audit.action,
          entity_type: entityType,
          entity_id: String(id),
          before_json: JSON.stringify(d.before),
          after_json: JSON.stringify(d.after),
          at: audit.at,
        })
        .execute();
      return after;
    });
  }
  return {
    firm: async (id: number, changes: Updateable<FirmTable>, audit: AuditEntry) =>
      (await change("firms", "firm", id, changes, audit)) as FirmRow | undefined,
    account: async (id: number, changes: Updateable<PaymentAccountTable>, audit: AuditEntry) =>
      (await change("payment_accounts", "account", id, changes, audit)) as AccountRow | undefined,
  };
}

export type AuditedChanges = ReturnType<typeof createAuditedChanges>;
