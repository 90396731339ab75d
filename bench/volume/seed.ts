import { type Kysely, sql } from "kysely";
import { sealContext } from "../../src/crypto/seal-context.js";
import type { SecretBox } from "../../src/crypto/secret-box.js";
import type { Store } from "../../src/store/engine/open.js";
import type { Database } from "../../src/store/schema.js";
import { INSERT_COLUMNS } from "../../src/store/transactions/insert-columns.js";
import { foldHours } from "../../src/store/transactions/summary-hours.js";
import { auditOf, type ColumnValues, callbackOf } from "./outbox.js";
import { createRows, type Fixture } from "./rows.js";

/**
 * Grows a store from one size to the next through the store's own connection (no HTTP): many rows
 * per statement, one database transaction per batch, the three tables a decision writes together.
 * Each table's batch is one parameter, a JSON array of rows that the database takes apart itself
 * (jsonb_each on SQLite, jsonb_array_elements on PostgreSQL): one statement per table and batch,
 * whatever the batch's size, and no per-row work in this process beyond JSON.stringify. Both read
 * it as JSONB, parsed once: on text JSON each `->>` parses the row again, once per column.
 */
interface TableSpec {
  name: "transactions" | "callbacks" | "audit_log";
  /** Column and its PostgreSQL type. */
  columns: readonly (readonly [string, string])[];
}

const TRANSACTIONS: TableSpec = {
  name: "transactions",
  columns: [
    ["id", "bigint"],
    ...INSERT_COLUMNS,
    ["decided_at", "bigint"],
    ["decided_by", "text"],
    ["decision_note", "text"],
    ["original_amount", "bigint"],
  ],
};

const CALLBACKS: TableSpec = {
  name: "callbacks",
  columns: [
    ["id", "bigint"],
    ["transaction_id", "bigint"],
    ["firm_id", "int"],
    ["event", "text"],
    ["url", "text"],
    ["origin", "text"],
    ["payload", "text"],
    ["hash_input", "text"],
    ["status", "text"],
    ["step", "int"],
    ["attempts", "int"],
    ["next_attempt_at", "bigint"],
    ["lease_until", "bigint"],
    ["last_attempt_at", "bigint"],
    ["last_result", "text"],
    ["delivered_at", "bigint"],
    ["failed_at", "bigint"],
    ["created_at", "bigint"],
    ["updated_at", "bigint"],
  ],
};

const AUDIT: TableSpec = {
  name: "audit_log",
  columns: [
    ["id", "bigint"],
    ["actor", "text"],
    ["action", "text"],
    ["entity_type", "text"],
    ["entity_id", "text"],
    ["before_json", "text"],
    ["after_json", "text"],
    ["at", "bigint"],
  ],
};

/** Transactions per database transaction: a few megabytes of parameters per statement. */
const BATCH = 10_000;
const PROGRESS_EVERY_MS = 5_000;

export interface SeedResult {
  transactions: number;
  /** Rows written in all: transactions, callbacks and audit entries. */
  rows: number;
  seconds: number;
  perSecond: number;
  /** Of `seconds`, the time this process spent making the rows (the rest: waiting for the database). */
  buildSeconds: number;
  /** PostgreSQL: the sequences moved past the seeded ids, then VACUUM ANALYZE, as autovacuum would. */
  settleSeconds: number;
}

interface Batch {
  transactions: ColumnValues[];
  callbacks: ColumnValues[];
  audit: ColumnValues[];
}

/** Adds the rows at positions [from, to) (rows.ts), oldest first within each batch. */
export async function seedStep(
  store: Store,
  fx: Fixture,
  box: SecretBox,
  range: { from: number; to: number },
  log: (line: string) => void,
): Promise<SeedResult> {
  const rowAt = createRows(fx);
  const total = range.to - range.from;
  const started = performance.now();
  let shown = started;
  let done = 0;
  let rows = 0;
  let building = 0;
  const writing: Promise<void>[] = [];
  for (let high = range.to - 1; high >= range.from; high -= BATCH) {
    const low = Math.max(range.from, high - BATCH + 1);
    const built = performance.now();
    const batch = buildBatch(rowAt, fx, box, high, low);
    building += performance.now() - built;
    // Built while earlier batches are written: the database works in its own thread or process
    // meanwhile, PostgreSQL on two connections (its backend is the slower side).
    if (writing.length >= (store.dialect === "postgres" ? 2 : 1)) await writing.shift();
    const written = writeBatch(store, batch);
    // Awaited in turn below; a later batch failing meanwhile is not an unhandled rejection.
    written.catch(() => {});
    writing.push(written);
    done += high - low + 1;
    rows += batch.transactions.length + batch.callbacks.length + batch.audit.length;
    const now = performance.now();
    if (now - shown >= PROGRESS_EVERY_MS) {
      shown = now;
      const rate = done / ((now - started) / 1000);
      log(
        `${store.dialect}: ${done.toLocaleString("en-US")} of ${total.toLocaleString("en-US")} transactions ` +
          `(${Math.round((100 * done) / total)} %), ${Math.round(rate).toLocaleString("en-US")}/s, ` +
          `about ${Math.round((total - done) / rate)} s left`,
      );
    }
  }
  await Promise.all(writing);
  const seconds = (performance.now() - started) / 1000;
  const settleStarted = performance.now();
  if (store.dialect === "postgres") await settlePostgres(store.db);
  return {
    transactions: total,
    rows,
    seconds,
    perSecond: total / seconds,
    buildSeconds: building / 1000,
    settleSeconds: (performance.now() - settleStarted) / 1000,
  };
}

function buildBatch(
  rowAt: ReturnType<typeof createRows>,
  fx: Fixture,
  box: SecretBox,
  high: number,
  low: number,
): Batch {
  const batch: Batch = { transactions: [], callbacks: [], audit: [] };
  for (let k = high; k >= low; k--) {
    const tx = rowAt(k);
    // Sealed as intake seals it, bound to the firm and reference (crypto/seal-context.ts).
    if (tx.nationalId !== null)
      tx.national_id_sealed = box.seal(tx.nationalId, sealContext.nationalId(tx.firm_id, tx.reference));
    batch.transactions.push(tx as unknown as ColumnValues);
    const callback = callbackOf(tx, fx.end, fx.seed);
    if (callback) batch.callbacks.push(callback);
    const audit = auditOf(tx);
    if (audit) batch.audit.push(audit);
  }
  return batch;
}

function writeBatch(store: Store, batch: Batch): Promise<void> {
  return store.db.transaction().execute(async (trx) => {
    await insertRows(trx, store.dialect, TRANSACTIONS, batch.transactions);
    await insertRows(trx, store.dialect, CALLBACKS, batch.callbacks);
    await insertRows(trx, store.dialect, AUDIT, batch.audit);
  });
}

async function insertRows(
  db: Kysely<Database>,
  dialect: Store["dialect"],
  table: TableSpec,
  rows: readonly ColumnValues[],
): Promise<void> {
  if (rows.length === 0) return;
  const columns = table.columns.map(([c]) => c);
  const json = JSON.stringify(rows.map((row) => columns.map((c) => row[c] ?? null)));
  const names = columns.join(", ");
  const picks = table.columns
    .map(([, type], i) => (dialect === "sqlite" ? `value ->> ${i}` : `(value ->> ${i})::${type}`))
    .join(", ");
  const source = dialect === "sqlite" ? "jsonb_each(" : "jsonb_array_elements(";
  const head = sql.raw(`INSERT INTO ${table.name} (${names}) SELECT ${picks} FROM ${source}`);
  const cast = sql.raw(dialect === "sqlite" ? ")" : "::jsonb)");
  await sql`${head}${json}${cast}`.execute(db);
}

/**
 * Rows written with their ids leave PostgreSQL's identity sequences behind (SQLite's AUTOINCREMENT
 * follows by itself); the service's next row would take a seeded id. The summary's deltas the
 * triggers appended (one per seeded delivery) are folded into the hours' buckets, as the service's
 * minute would fold them (a store made by a version before them, in an A/B run, has none). The
 * statistics are gathered as autovacuum would a minute later, so the plans measured are the ones a
 * settled store gets.
 */
async function settlePostgres(db: Kysely<Database>): Promise<void> {
  const deltas = await sql<{
    found: boolean;
  }>`SELECT to_regclass('transaction_hour_deltas') IS NOT NULL AS found`.execute(db);
  const buckets = deltas.rows[0]?.found
    ? ", transaction_hours, transaction_hour_deltas, callback_hours, callback_hour_deltas"
    : "";
  if (buckets) while ((await foldHours(db, "postgres", 100_000)) > 0);
  for (const table of [TRANSACTIONS, CALLBACKS, AUDIT])
    await sql
      .raw(
        `SELECT setval(pg_get_serial_sequence('${table.name}', 'id'), (SELECT max(id) FROM ${table.name}))`,
      )
      .execute(db);
  await sql.raw(`VACUUM ANALYZE transactions, callbacks, audit_log${buckets}`).execute(db);
}
