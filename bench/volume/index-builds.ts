import { sql } from "kysely";
import type { Store } from "../../src/store/engine/open.js";
import { operatorIndexes } from "../../src/store/migrations/20261128T1000_operator_indexes.js";
import { purgeIndexes } from "../../src/store/migrations/20261128T1100_purge_indexes.js";
import { nameSearch } from "../../src/store/migrations/20261128T1200_name_search.js";
import { amountDayIndexes } from "../../src/store/migrations/20261201T1000_amount_day_indexes.js";
import { nameDayIndex } from "../../src/store/migrations/20261201T1200_name_day_index.js";
import { summaryHours } from "../../src/store/migrations/20261203T1000_summary_hours.js";
import type { IndexBuild } from "../../src/store/migrations/migration.js";

/**
 * How long the volume migrations' builds take on a store of this size (issue 33: an operator of
 * the embedded store needs the length of the maintenance window; one of PostgreSQL how long a
 * CONCURRENTLY build reads beside the writes). Each index is dropped and built again with the very
 * definition its migration has, the way the migration builds it (SQLite in one statement that holds
 * the writes; PostgreSQL CONCURRENTLY), so the store ends as it began. SQLite's name index is a
 * full-text table: its time is the migration's `rebuild`. Then the ANALYZE a SQLite migration ends
 * with.
 */
export interface BuildTime {
  name: string;
  seconds: number;
}

/** SQLite's own: the firm's pending rows (migration 20261128T1000's script). */
const SQLITE_ONLY: IndexBuild[] = [
  {
    name: "transactions_pending_firm_idx",
    table: "transactions",
    definition: "(firm_id, id) WHERE status = 'pending'",
  },
];

async function timed(work: () => Promise<unknown>): Promise<number> {
  const started = process.hrtime.bigint();
  await work();
  return Number(process.hrtime.bigint() - started) / 1e9;
}

async function extensionSchema(store: Store): Promise<string | undefined> {
  const found = await sql<{ schema: string }>`SELECT n.nspname AS schema FROM pg_extension e
    JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'pg_trgm'`.execute(store.db);
  return found.rows[0]?.schema;
}

async function indexNames(store: Store): Promise<Set<string>> {
  const found =
    store.dialect === "sqlite"
      ? sql<{ name: string }>`SELECT name FROM sqlite_master WHERE type = 'index'`
      : sql<{ name: string }>`SELECT indexname AS name FROM pg_indexes WHERE schemaname = current_schema()`;
  return new Set((await found.execute(store.db)).rows.map((r) => r.name));
}

export async function timeIndexBuilds(store: Store, log: (line: string) => void): Promise<BuildTime[]> {
  const sqlite = store.dialect === "sqlite";
  const trgm = sqlite ? undefined : await extensionSchema(store);
  // A later migration may drop an earlier one's index (IndexBuild.replaces):
  // only what the store holds is built again.
  const held = await indexNames(store);
  const builds = [operatorIndexes, purgeIndexes, nameSearch, amountDayIndexes, nameDayIndex, summaryHours]
    .flatMap((m) => m.indexes ?? [])
    .filter((i) =>
      sqlite
        ? i.extensions === undefined && !i.postgresOnly
        : i.extensions === undefined || trgm !== undefined,
    )
    .concat(sqlite ? SQLITE_ONLY : [])
    .filter((i) => held.has(i.name));
  const run = (text: string) => sql.raw(text).execute(store.db);
  const times: BuildTime[] = [];
  for (const index of builds) {
    const definition = index.definition.replaceAll("{pg_trgm}", `"${trgm}"`);
    await run(sqlite ? `DROP INDEX ${index.name}` : `DROP INDEX CONCURRENTLY ${index.name}`);
    const seconds = await timed(() =>
      run(`CREATE INDEX${sqlite ? "" : " CONCURRENTLY"} ${index.name} ON ${index.table} ${definition}`),
    );
    times.push({ name: index.name, seconds });
    log(`${store.dialect}: index ${index.name} built in ${seconds.toFixed(1)} s`);
  }
  if (sqlite) {
    const rebuild = await timed(() =>
      run("INSERT INTO transaction_names (transaction_names) VALUES ('rebuild')"),
    );
    times.push({ name: "transaction_names (full-text, rebuild)", seconds: rebuild });
    times.push({ name: "ANALYZE (after the migrations)", seconds: await timed(() => run("ANALYZE")) });
  }
  log(`${store.dialect}: all builds ${times.reduce((s, t) => s + t.seconds, 0).toFixed(1)} s`);
  return times;
}
