import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCallbackRepository } from "../../src/store/callbacks/callbacks.js";
import type { Store } from "../../src/store/engine/open.js";
import { STORES, type StoreKind } from "../support/harness.js";
import { depositRow, insertAccount, insertFirm } from "../support/rows.js";
import { freshStore } from "../support/store.js";

/**
 * The callbacks still owed, as the console's summary counts them: the failed ones no further than
 * it asks (they add up over the years), as the metrics count them: all.
 */
describe.each(STORES)("callbacks still owed (%s)", (kind: StoreKind) => {
  let close: () => Promise<void>;
  let store: Store;
  const NOW = 1_800_000_000_000;

  beforeAll(async () => {
    ({ store, close } = await freshStore(kind));
  });
  afterAll(async () => {
    await close?.();
  });

  it("counts the pending and the failed, the failed up to a cap when one is given", async () => {
    const firmId = await insertFirm(store, NOW);
    const accountId = await insertAccount(store, NOW);
    const statuses = ["failed", "failed", "failed", "pending", "pending", "delivered"] as const;
    // A callback per transaction (the store holds one each).
    const txs = await store.db
      .insertInto("transactions")
      .values(
        statuses.map((_, i) => ({
          ...depositRow({ firmId, accountId, amount: 10_000, reference: `cb-${i}` }, NOW),
          status: "approved" as const,
        })),
      )
      .returning("id")
      .execute();
    await store.db
      .insertInto("callbacks")
      .values(
        statuses.map((status, i) => ({
          transaction_id: Number(txs[i]?.id),
          firm_id: firmId,
          event: "transaction.approved",
          url: "https://hooks.example/cb",
          origin: "https://hooks.example:443",
          payload: "{}",
          hash_input: "x",
          status,
          step: 0,
          attempts: status === "pending" ? 0 : 9,
          next_attempt_at: NOW,
          lease_until: 0,
          lease_owner: null,
          last_attempt_at: null,
          last_result: null,
          delivered_at: status === "delivered" ? NOW : null,
          failed_at: status === "failed" ? NOW : null,
          created_at: NOW,
          updated_at: NOW,
        })),
      )
      .execute();
    const callbacks = createCallbackRepository(store.db, store.dialect);
    expect(await callbacks.countOpen()).toEqual({ pending: 2, failed: 3 });
    expect(await callbacks.countOpen(10)).toEqual({ pending: 2, failed: 3 });
    // One past the cap: more than the cap is told from the cap itself.
    expect(await callbacks.countOpen(3)).toEqual({ pending: 2, failed: 3 });
    expect(await callbacks.countOpen(2)).toEqual({ pending: 2, failed: 3 });
    expect(await callbacks.countOpen(1)).toEqual({ pending: 2, failed: 2 });
  });
});
