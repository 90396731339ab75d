import { type Kysely, type RawBuilder, sql } from "kysely";
import { sealContext } from "../crypto/seal-context.js";
import { writeAudit } from "./audited.js";
import type { Dialect, Store } from "./engine/open.js";
import type { Database } from "./schema.js";
import { createStoreKeyRepository } from "./store-keys.js";

/**
 * Every column holding values sealed with the master key (crypto/secret-box.ts), by table. A
 * rotation re-seals exactly these: a column missing here would be left under a key the store no
 * longer has, so a rotation refuses a schema with a `*_sealed` column this list does not name.
 */
export const SEALED_COLUMNS = {
  firms: ["secret_sealed"],
  channels: ["secret_sealed"],
  payment_accounts: ["feed_secret_sealed"],
  operators: ["totp_sealed", "totp_pending_sealed"],
  payment_sessions: ["request_sealed"],
  transactions: ["national_id_sealed"],
  payment_code_keys: ["key_sealed"],
} as const satisfies { [T in keyof Database]?: readonly (keyof Database[T] & string)[] };

type Row = Record<string, unknown> & { id: number };

/**
 * What each table's values are sealed for (crypto/seal-context.ts), from the row's own columns
 * (`reads`): a rotation opens and seals each value again for its row. Both of an operator's
 * columns have the operator's context (a confirmed secret is the pending one, moved over sealed).
 */
export const SEAL_CONTEXTS: {
  [T in keyof typeof SEALED_COLUMNS]: {
    reads: readonly (keyof Database[T] & string)[];
    of(row: Row): string;
  };
} = {
  firms: { reads: ["id"], of: (r) => sealContext.firmSecret(r.id) },
  channels: { reads: ["id"], of: (r) => sealContext.channelSecret(r.id) },
  payment_accounts: { reads: ["id"], of: (r) => sealContext.feedSecret(r.id) },
  operators: { reads: ["id"], of: (r) => sealContext.operatorTotp(r.id) },
  payment_sessions: { reads: ["token_hash"], of: (r) => sealContext.hostedRequest(String(r.token_hash)) },
  transactions: {
    reads: ["firm_id", "reference"],
    of: (r) => sealContext.nationalId(Number(r.firm_id), String(r.reference)),
  },
  payment_code_keys: { reads: ["id"], of: (r) => sealContext.paymentCodeKey(r.id) },
};

/** Rows read and rewritten per statement. */
const BATCH = 500;

export interface SealedSecretsTransaction {
  masterCheck(): Promise<string | undefined>;
  /**
   * Replaces every sealed value with `reseal(value, context, where)`: `context` is the one the value
   * is sealed for (SEAL_CONTEXTS); `where` names the table, column and row, never the value. Null and '' are not sealed values (a payment page's details are '' once
   * dropped) and stay. Returns how many values were re-sealed, by "table.column".
   */
  resealAll(
    reseal: (sealed: string, context: string, where: string) => string,
  ): Promise<Record<string, number>>;
  /** Puts `check` in place of the master key's check (there must be one). */
  replaceMasterCheck(check: string, now: number): Promise<void>;
  /** An audit row for a change to the store as a whole (entity "store"). */
  audit(entry: { actor: string; action: string; at: number }, after: Record<string, unknown>): Promise<void>;
}

export interface SealedSecretsStore {
  /**
   * Runs `work` in one database transaction while no server holds the store: all of it commits,
   * or none. "in_use" (and nothing run) when a server holds it.
   */
  transaction<T>(work: (tx: SealedSecretsTransaction) => Promise<T>): Promise<T | "in_use">;
}

export function createSealedSecretsStore(
  store: Pick<Store, "dialect" | "withoutServers">,
): SealedSecretsStore {
  return {
    transaction: (work) =>
      store.withoutServers((db) =>
        db.transaction().execute((trx) => work(sealedSecretsIn(trx, store.dialect))),
      ),
  };
}

/** Every `*_sealed` column in the schema, as "table.column". */
export async function sealedColumnsInSchema(db: Kysely<Database>, dialect: Dialect): Promise<string[]> {
  const found =
    dialect === "sqlite"
      ? await sql<{ name: string }>`SELECT m.name || '.' || c.name AS name
          FROM sqlite_master m JOIN pragma_table_info(m.name) c
          WHERE m.type = 'table' AND c.name LIKE '%\\_sealed' ESCAPE '\\'`.execute(db)
      : await sql<{ name: string }>`SELECT table_name || '.' || column_name AS name
          FROM information_schema.columns
          WHERE table_schema = current_schema() AND column_name LIKE '%\\_sealed' ESCAPE '\\'`.execute(db);
  return found.rows.map((r) => r.name).sort();
}

function sealedSecretsIn(db: Kysely<Database>, dialect: Dialect): SealedSecretsTransaction {
  const keys = createStoreKeyRepository(db);
  return {
    masterCheck: keys.masterCheck,

    async resealAll(reseal) {
      // PostgreSQL: no write to a table with sealed values may be in flight while it is re-sealed,
      // nor start before the commit. A server that lost its serving lock refuses to seal
      // (crypto/secret-box.ts sealOnlyWhile), but a write it sealed just before may still be
      // committing; this waits for it, so the walk below sees its row. (The embedded store admits
      // one process: nothing else can be writing.)
      if (dialect === "postgres")
        await sql`LOCK TABLE ${sql.join(
          Object.keys(SEALED_COLUMNS).map((t) => sql.table(t)),
        )} IN SHARE ROW EXCLUSIVE MODE`.execute(db);
      const known = new Set(
        Object.entries(SEALED_COLUMNS).flatMap(([table, columns]) => columns.map((c) => `${table}.${c}`)),
      );
      const unknown = (await sealedColumnsInSchema(db, dialect)).filter((c) => !known.has(c));
      if (unknown.length > 0)
        throw new Error(
          `sealed columns this version cannot re-seal: ${unknown.join(", ")}; nothing was changed`,
        );
      const counts: Record<string, number> = {};
      for (const table of Object.keys(SEALED_COLUMNS) as (keyof typeof SEALED_COLUMNS)[]) {
        const columns = SEALED_COLUMNS[table];
        const context = SEAL_CONTEXTS[table];
        for (const column of columns) counts[`${table}.${column}`] = 0;
        await resealTable(db, table, columns, context.reads, (sealed, column, row) => {
          counts[`${table}.${column}`] = (counts[`${table}.${column}`] ?? 0) + 1;
          return reseal(sealed, context.of(row), `${table}.${column} of row ${row.id}`);
        });
      }
      return counts;
    },

    replaceMasterCheck: keys.replaceMasterCheck,

    async audit(entry, after) {
      await writeAudit(db, entry, "store", "master_key", null, after);
    },
  };
}

/**
 * Walks the table by id, a batch at a time, and rewrites each batch in one statement (a CASE per
 * column: the same SQL on both stores, and a round trip per 500 rows rather than per row). Ids do
 * not change, so the walk sees each row once. Only this transaction writes meanwhile: no server
 * holds the store.
 */
async function resealTable(
  db: Kysely<Database>,
  table: string,
  columns: readonly string[],
  reads: readonly string[],
  reseal: (sealed: string, column: string, row: Row) => string,
): Promise<void> {
  const isSealed = (c: string) => sql`(${sql.ref(c)} IS NOT NULL AND ${sql.ref(c)} <> '')`;
  const selected = [...new Set(["id", ...reads, ...columns])].map((c) => sql.ref(c));
  let after = 0;
  for (;;) {
    const rows = await sql<Row>`
      SELECT ${sql.join(selected)} FROM ${sql.table(table)}
      WHERE id > ${after} AND (${sql.join(columns.map(isSealed), sql` OR `)})
      ORDER BY id LIMIT ${BATCH}`.execute(db);
    if (rows.rows.length === 0) return;
    const sets: RawBuilder<unknown>[] = [];
    for (const column of columns) {
      const whens: RawBuilder<unknown>[] = [];
      for (const row of rows.rows) {
        const value = row[column];
        if (typeof value === "string" && value !== "")
          whens.push(sql`WHEN ${row.id} THEN ${reseal(value, column, row)}`);
      }
      if (whens.length > 0)
        sets.push(sql`${sql.ref(column)} = CASE id ${sql.join(whens, sql` `)} ELSE ${sql.ref(column)} END`);
    }
    const ids = rows.rows.map((r) => r.id);
    await sql`UPDATE ${sql.table(table)} SET ${sql.join(sets)} WHERE id IN (${sql.join(ids)})`.execute(db);
    after = ids[ids.length - 1] as number;
  }
}
