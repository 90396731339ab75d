import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Store } from "../../src/store/engine/open.js";
import { createStatementRepository } from "../../src/store/statements/statement-lines.js";
import { STORES, type StoreKind } from "../support/harness.js";
import { insertAccount } from "../support/rows.js";
import { freshStore } from "../support/store.js";

/**
 * The numbers of an account's latest statements (read at every import to find gaps) come from the
 * imports that have one, through their own index (migration 20261205T1000_statement_sequences):
 * however many imports without a number an account has (the security test left 2.6 million), the
 * next import reads its hundred numbers without walking past them.
 */
describe.each(STORES)("statement numbers (%s)", (kind: StoreKind) => {
  let store: Store;
  let close: () => Promise<void>;
  let accountId: number;
  const NOW = 1_800_000_000_000;

  beforeAll(async () => {
    ({ store, close } = await freshStore(kind));
    accountId = await insertAccount(store, NOW);
  });
  afterAll(async () => {
    await close?.();
  });

  const row = (sequence: string | null) => ({
    account_id: accountId,
    format: "camt.053",
    sequence,
    opening_amount: null,
    closing_amount: null,
    doubts: "",
    lines_read: 0,
    imported_by: "test",
    created_at: NOW,
  });

  it("the latest hundred numbers, newest first, past any number of imports without one", async () => {
    const repo = createStatementRepository(store.db);
    for (let i = 1; i <= 150; i++) await repo.createImport(row(String(i)));
    // Ten thousand imports without a number after them, in batches.
    for (let b = 0; b < 20; b++)
      await store.db
        .insertInto("statement_imports")
        .values(Array.from({ length: 500 }, () => row(null)))
        .execute();
    const sequences = await repo.recentSequences(accountId);
    expect(sequences).toHaveLength(100);
    expect(sequences[0]).toBe("150");
    expect(sequences.at(-1)).toBe("51");
  });

  it("the read goes through the numbered imports' index", async () => {
    if (store.dialect === "sqlite") {
      const plan = await sql<{ detail: string }>`EXPLAIN QUERY PLAN SELECT sequence FROM statement_imports
        WHERE account_id = ${accountId} AND sequence IS NOT NULL ORDER BY id DESC LIMIT 100`.execute(
        store.db,
      );
      expect(plan.rows.map((r) => r.detail).join(" ")).toMatch(/statement_imports_sequence_idx/);
    } else {
      await sql`ANALYZE statement_imports`.execute(store.db);
      const plan = await sql<{ "QUERY PLAN": string }>`EXPLAIN SELECT sequence FROM statement_imports
        WHERE account_id = ${accountId} AND sequence IS NOT NULL ORDER BY id DESC LIMIT 100`.execute(
        store.db,
      );
      expect(plan.rows.map((r) => r["QUERY PLAN"]).join(" ")).toMatch(/statement_imports_sequence_idx/);
    }
  });
});
