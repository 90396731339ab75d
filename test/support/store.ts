import { sql } from "kysely";
import { openStore, type Store } from "../../src/store/engine/open.js";
import { type StoreKind, storeEnv } from "./harness.js";

/**
 * A fresh, migrated store of one kind, for tests of the store layer below the HTTP API. `open()`
 * opens another store on the same database: another instance, on PostgreSQL (SQLite takes one
 * process per data directory, so there tests share `store`). `close()` closes all and drops the
 * database.
 */
export async function freshStore(kind: StoreKind, pgPoolSize = 4) {
  const env = await storeEnv(kind);
  const opened: Store[] = [];
  const open = async () => {
    const s = await openStore({
      databaseUrl: env.env.DATABASE_URL,
      dataDir: env.env.PAYINTAKE_DATA_DIR ?? "",
      pgPoolSize,
    });
    opened.push(s);
    return s;
  };
  const store = await open();
  await store.migrate();
  return {
    store,
    open,
    async close() {
      for (const s of opened.splice(0).reverse()) await s.close();
      await env.cleanup();
    },
  };
}

/**
 * The store as it was before a migration, to test what the migration does to rows already there:
 * the statements that undo it (empty ones skipped, so a script split on ";" may be given), and its
 * version forgotten, so that the next `store.migrate()` applies it again.
 */
export async function undoMigration(store: Store, version: string, statements: readonly string[]) {
  for (const statement of statements) if (statement.trim() !== "") await sql.raw(statement).execute(store.db);
  await store.db.deleteFrom("schema_migrations").where("version", "=", version).execute();
}
