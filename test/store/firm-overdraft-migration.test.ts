import { afterEach, describe, expect, it } from "vitest";
import { firmOverdraft } from "../../src/store/migrations/20261207T1500_firm_overdraft.js";
import { STORES } from "../support/harness.js";
import { insertFirm } from "../support/rows.js";
import { freshStore, undoMigration } from "../support/store.js";

/**
 * Migration 20261207T1500 on a store that already holds firms: the ledger began with no opening
 * balances, so the ledger's guard starts off for the service, the settings set there kept; on a
 * store of no live firm (a new one, or test firms only) it starts on, as for every firm made later.
 */
describe.each(STORES)("the ledger's guard as an upgrade starts it (%s)", (kind) => {
  let close: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await close?.();
    close = undefined;
  });

  async function migratedFrom(settings: string | null, firms: { sandbox: number }[]) {
    const fresh = await freshStore(kind);
    close = fresh.close;
    const { store } = fresh;
    await undoMigration(store, firmOverdraft.version, [
      "DROP INDEX payout_attempts_held_idx",
      "ALTER TABLE firms DROP COLUMN overdraft",
      "DELETE FROM payout_settings",
    ]);
    for (const [i, f] of firms.entries()) await insertFirm(store, 1_000 + i, f);
    if (settings !== null)
      await store.db
        .insertInto("payout_settings")
        .values({ scope: "all", settings, updated_by: "admin-api:mert", updated_at: 1 })
        .execute();
    await store.migrate();
    const rows = await store.db.selectFrom("payout_settings").select(["scope", "settings"]).execute();
    return rows.map((r) => [r.scope, JSON.parse(r.settings)]);
  }

  it("live firms already there: off for the service, the service's other settings kept", async () => {
    expect(await migratedFrom('{"payouts":true,"fastLimit":5000000}', [{ sandbox: 0 }])).toEqual([
      ["all", { payouts: true, fastLimit: 5_000_000, balanceGuard: false }],
    ]);
  });

  it("live firms and no settings yet: off for the service", async () => {
    expect(await migratedFrom(null, [{ sandbox: 1 }, { sandbox: 0 }])).toEqual([
      ["all", { balanceGuard: false }],
    ]);
  });

  it("no live firm (a new store, or test firms only): on, nothing written", async () => {
    expect(await migratedFrom(null, [{ sandbox: 1 }])).toEqual([]);
  });
});
