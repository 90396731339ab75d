import { sql } from "kysely";
import { createSecretBox } from "../../src/crypto/secret-box.js";
import type { PaymentCodes } from "../../src/domain/payment-code.js";
import { loadPaymentCodes } from "../../src/main/payment-codes.js";
import { openStore, type Store } from "../../src/store/engine/open.js";
import { SEALED_COLUMNS } from "../../src/store/sealed-secrets.js";
import { createPaymentCodeKeyRepository } from "../../src/store/statements/payment-code-keys.js";

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

/**
 * The payment codes a server on this store shows, read as a server reads them: the store's key
 * opened with the master key of `env` (made now if no server has started on the store yet).
 */
export function storedPaymentCodes(
  store: Store,
  env: Record<string, string | undefined>,
): Promise<PaymentCodes> {
  const box = createSecretBox(Buffer.from(env.PAYINTAKE_MASTER_KEY as string, "hex"));
  return loadPaymentCodes(createPaymentCodeKeyRepository(store.db), box, Date.now);
}
