import { sql } from "kysely";
import { openStore, type Store } from "../../src/store/engine/open.js";
import { SEALED_COLUMNS } from "../../src/store/sealed-secrets.js";

/** The store a stopped server left, opened directly (SQLite admits one process at a time). */
export async function withStore<T>(
  env: Record<string, string | undefined>,
  use: (s: Store) => Promise<T>,
): Promise<T> {
  const store = await openStore({
    databaseUrl: env.DATABASE_URL,
    dataDir: env.PAYINTAKE_DATA_DIR as string,
    pgPoolSize: 2,
  });
  try {
    return await use(store);
  } finally {
    await store.close();
  }
}

/** Every sealed value and the key check: what a refused master key rotation must leave as it was. */
export function sealedState(env: Record<string, string | undefined>): Promise<Record<string, unknown[]>> {
  return withStore(env, async (store) => {
    const out: Record<string, unknown[]> = {
      store_keys: await store.db.selectFrom("store_keys").selectAll().execute(),
    };
    for (const [table, columns] of Object.entries(SEALED_COLUMNS)) {
      const rows = await sql<Record<string, unknown>>`SELECT id, ${sql.join(columns.map((c) => sql.ref(c)))}
        FROM ${sql.table(table)} ORDER BY id`.execute(store.db);
      out[table] = rows.rows;
    }
    return out;
  });
}
