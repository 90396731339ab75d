import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAuditedChanges } from "../../src/store/audited.js";
import { openStore, type Store } from "../../src/store/engine/open.js";
import { STORES, storeEnv } from "../support/harness.js";
import { pauseAfterStatement } from "../support/pause.js";
import { depositRow, insertAccount, insertFirm } from "../support/rows.js";

/**
 * An operator's audited edit of a firm or an account locks its row while it logs the change; on
 * PostgreSQL, deposits inserted meanwhile (which key-share lock their firm and account rows through
 * their foreign keys) must not wait for it.
 */
describe.runIf(STORES.includes("postgres"))("audited edits and deposit inserts (postgres)", () => {
  let cleanup: () => Promise<void>;
  let store: Store;
  let other: Store;
  const NOW = 1_000_000;

  beforeAll(async () => {
    const env = await storeEnv("postgres");
    cleanup = env.cleanup;
    const open = () => openStore({ databaseUrl: env.env.DATABASE_URL, dataDir: "", pgPoolSize: 2 });
    store = await open();
    await store.migrate();
    other = await open();
  });
  afterAll(async () => {
    await other?.close();
    await store?.close();
    await cleanup?.();
  });

  it("a deposit is written while an edit of its firm and of its account holds their rows", async () => {
    const firmId = await insertFirm(store, NOW);
    const accountId = await insertAccount(store, NOW);
    for (const [table, id] of [
      ["firms", firmId],
      ["payment_accounts", accountId],
    ] as const) {
      // The edit stops after its first statement, the locking read of the row.
      const pause = pauseAfterStatement({ n: 1 });
      const edits = createAuditedChanges(store.db.withPlugin(pause.plugin), "postgres");
      const edit = edits.update(
        table,
        id,
        { updated_at: NOW + 1 },
        { actor: "test", action: "edit", at: NOW },
      );
      await pause.reached;
      const reference = `D-${table}`;
      const written = other.db
        .insertInto("transactions")
        .values(depositRow({ firmId, accountId, amount: 100, reference }, NOW))
        .execute()
        .then(() => "written");
      const waited = new Promise((r) => setTimeout(() => r("waited"), 2_000));
      try {
        // With FOR UPDATE the insert waited for the edit to commit.
        expect(await Promise.race([written, waited])).toBe("written");
      } finally {
        pause.go();
        await edit;
        await written;
      }
    }
  });
});
