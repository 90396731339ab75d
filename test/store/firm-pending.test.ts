import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Store } from "../../src/store/engine/open.js";
import { createRepositories, type Repositories } from "../../src/store/index.js";
import { firmPendingBounds } from "../../src/store/migrations/20261129T1000_firm_pending_bounds.js";
import type { NewTransaction } from "../../src/store/transactions/transactions.js";
import { STORES, type StoreKind } from "../support/harness.js";
import { insertAccount, insertFirm } from "../support/rows.js";
import { freshStore, undoMigration } from "../support/store.js";

/**
 * Each firm's pending deposits as the triggers keep them (migration 20261129T1000): always what a
 * count of its rows says, whoever writes; a deposit past a bound refused by the insert itself.
 */
describe.each(STORES)("firm_pending (%s)", (kind: StoreKind) => {
  let close: () => Promise<void>;
  let store: Store;
  let repos: Repositories;
  let seq = 0;
  let account: number;

  beforeAll(async () => {
    ({ store, close } = await freshStore(kind));
    repos = createRepositories(store);
    account = await insertAccount(store, 1);
  });
  afterAll(async () => {
    await close?.();
  });

  const row = (
    firmId: number,
    amount: number,
    type: "deposit" | "withdrawal" = "deposit",
  ): NewTransaction => {
    seq++;
    return {
      firm_id: firmId,
      reference: `R-${seq}`,
      type,
      status: "pending",
      amount,
      method: "havale",
      first_name: "Ayşe",
      last_name: "Yılmaz",
      middle_name: null,
      username: "ayse",
      user_id: `u-${seq}`,
      national_id_masked: null,
      national_id_sealed: null,
      bank_code: "AKBANK",
      iban: null,
      iban_valid: null,
      account_id: type === "deposit" ? account : null,
      assigned_bank_name: type === "deposit" ? "B" : null,
      assigned_holder_name: type === "deposit" ? "H" : null,
      assigned_iban: type === "deposit" ? "TR000000000000000000000001" : null,
      callback_url: "http://127.0.0.1:9/callbacks",
      routing_log: null,
      ignored_fields: null,
      payer_name_key: "ayse yilmaz",
      created_at: 1,
      updated_at: 1,
    };
  };
  const insert = async (tx: NewTransaction) => {
    const r = await repos.transactions.insert(tx);
    if (!r.ok) throw new Error(`not inserted: ${JSON.stringify(r)}`);
    return r.id;
  };
  /** What the counter says, and what a count of the rows says, per firm. */
  async function counted(firmIds: number[]) {
    const kept = await store.db
      .selectFrom("firm_pending")
      .select(["firm_id", "deposits", "amount"])
      .where("firm_id", "in", firmIds)
      .execute();
    const actual = await store.db
      .selectFrom("transactions")
      .select(["firm_id", sql<number>`count(*)`.as("deposits"), sql<number>`sum(amount)`.as("amount")])
      .where("firm_id", "in", firmIds)
      .where("type", "=", "deposit")
      .where("status", "=", "pending")
      .groupBy("firm_id")
      .execute();
    const shape = (rows: { firm_id: number; deposits: unknown; amount: unknown }[]) =>
      Object.fromEntries(
        firmIds.map((id) => {
          const r = rows.find((x) => Number(x.firm_id) === id);
          return [id, [Number(r?.deposits ?? 0), Number(r?.amount ?? 0)]];
        }),
      );
    return { kept: shape(kept), actual: shape(actual) };
  }

  it("stays equal to a count of the pending deposits through inserts, decisions, amount changes and deletions", async () => {
    const a = await insertFirm(store, 1);
    const b = await insertFirm(store, 1);
    const ids = [];
    for (const amount of [1000, 2500, 700]) ids.push(await insert(row(a, amount)));
    ids.push(await insert(row(b, 4000)));
    await insert(row(a, 9999, "withdrawal"));
    const [first, second, third, other] = ids as [number, number, number, number];
    expect((await counted([a, b])).kept).toEqual({ [a]: [3, 4200], [b]: [1, 4000] });

    await store.db
      .updateTable("transactions")
      .set({ status: "approved", amount: 900 })
      .where("id", "=", first)
      .execute();
    await store.db.updateTable("transactions").set({ status: "rejected" }).where("id", "=", other).execute();
    // A decided row changing again, and a pending row's other columns, count nothing.
    await store.db.updateTable("transactions").set({ status: "rejected" }).where("id", "=", first).execute();
    await store.db
      .updateTable("transactions")
      .set({ payer_name_key: "x" })
      .where("id", "=", second)
      .execute();
    expect((await counted([a, b])).kept).toEqual({ [a]: [2, 3200], [b]: [0, 0] });
    // A pending deposit's amount corrected while it waits.
    await store.db.updateTable("transactions").set({ amount: 2000 }).where("id", "=", second).execute();
    await store.db.deleteFrom("transactions").where("id", "=", third).execute();
    const now = await counted([a, b]);
    expect(now.kept).toEqual({ [a]: [1, 2000], [b]: [0, 0] });
    expect(now.kept).toEqual(now.actual);
  });

  it("refuses, as a value, the deposit that passes a bound; the firm's other writes and other firms go on", async () => {
    const bounded = await insertFirm(store, 1, { max_pending_count: 2, max_pending_amount: 5000 });
    const free = await insertFirm(store, 1, { max_pending_count: null, max_pending_amount: null });
    await insert(row(bounded, 1000));
    await insert(row(bounded, 1000));
    expect(await repos.transactions.insert(row(bounded, 1000))).toEqual({
      ok: false,
      conflict: "pending_bound",
    });
    // Withdrawals are not bounded; an unbounded firm takes any number.
    await insert(row(bounded, 1000, "withdrawal"));
    for (let i = 0; i < 5; i++) await insert(row(free, 1_000_000));
    const amountBound = await insertFirm(store, 1, { max_pending_amount: 5000 });
    await insert(row(amountBound, 4000));
    expect(await repos.transactions.insert(row(amountBound, 1001))).toEqual({
      ok: false,
      conflict: "pending_bound",
    });
    await insert(row(amountBound, 1000));
    const c = await counted([bounded, free, amountBound]);
    expect(c.kept).toEqual({ [bounded]: [2, 2000], [free]: [5, 5_000_000], [amountBound]: [2, 5000] });
    expect(c.kept).toEqual(c.actual);
  });

  it("lets exactly the bound's number of concurrent inserts through", async () => {
    const firm = await insertFirm(store, 1, { max_pending_count: 4 });
    const results = await Promise.all(
      Array.from({ length: 20 }, () => repos.transactions.insert(row(firm, 100))),
    );
    expect(results.filter((r) => r.ok)).toHaveLength(4);
    expect(results.filter((r) => !r.ok && "conflict" in r && r.conflict === "pending_bound")).toHaveLength(
      16,
    );
    const c = await counted([firm]);
    expect(c.kept).toEqual({ [firm]: [4, 400] });
  });

  it("the migration counts the pending deposits already there", async () => {
    const firm = await insertFirm(store, 1);
    await insert(row(firm, 300));
    await insert(row(firm, 200));
    const decided = await insert(row(firm, 50));
    await store.db
      .updateTable("transactions")
      .set({ status: "approved" })
      .where("id", "=", decided)
      .execute();
    // Back to before the migration, the rows staying, and migrated again.
    const undo =
      kind === "postgres"
        ? `DROP TRIGGER firm_pending_insert ON transactions; DROP TRIGGER firm_pending_update ON transactions;
           DROP TRIGGER firm_pending_delete ON transactions; DROP FUNCTION firm_pending_added();
           DROP FUNCTION firm_pending_moved();`
        : `DROP TRIGGER firm_pending_insert; DROP TRIGGER firm_pending_leave; DROP TRIGGER firm_pending_enter;
           DROP TRIGGER firm_pending_delete;`;
    await undoMigration(store, firmPendingBounds.version, [
      ...undo.split(";"),
      "DROP TABLE firm_pending",
      "ALTER TABLE firms DROP COLUMN max_pending_count",
      "ALTER TABLE firms DROP COLUMN max_pending_amount",
      "ALTER TABLE firms DROP COLUMN max_cap_share",
    ]);
    await insert(row(firm, 25));
    await store.migrate();
    const c = await counted([firm]);
    expect(c.kept).toEqual({ [firm]: [3, 525] });
    const bounds = await store.db
      .selectFrom("firms")
      .select(["max_pending_count", "max_pending_amount"])
      .where("id", "=", firm)
      .executeTakeFirstOrThrow();
    // The defaults, for a firm that was there before the migration.
    expect([Number(bounds.max_pending_count), Number(bounds.max_pending_amount)]).toEqual([
      1000, 200_000_000,
    ]);
  });
});
