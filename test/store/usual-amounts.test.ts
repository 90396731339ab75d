import { CompiledQuery, sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Store } from "../../src/store/engine/open.js";
import {
  createUsualAmountRepository,
  recentApprovedQuery,
  windowStartQuery,
} from "../../src/store/payment-page/usual-amounts.js";
import { STORES, type StoreKind } from "../support/harness.js";
import { depositRow, insertAccount, insertFirm } from "../support/rows.js";
import { freshStore } from "../support/store.js";

/**
 * The sample a firm's usual amount is judged by (store/payment-page/usual-amounts.ts): its newest approved
 * deposits of the window, on a real store of each kind, read through the firm's index between the
 * window's first id and the newest, never the firm's whole history.
 */
const DAY = 24 * 60 * 60_000;

describe.each(STORES)("a firm's recent approved deposits (%s)", (kind: StoreKind) => {
  let close: () => Promise<void>;
  let store: Store;
  const NOW = 1_800_000_000_000;
  const firms: number[] = [];
  let accountId: number;

  beforeAll(async () => {
    ({ store, close } = await freshStore(kind));
    for (let i = 0; i < 3; i++) firms.push(await insertFirm(store, NOW));
    accountId = await insertAccount(store, NOW);
  });
  afterAll(async () => {
    await close?.();
  });

  type Row = ReturnType<typeof depositRow>;
  async function insert(rows: Row[]) {
    for (let i = 0; i < rows.length; i += 500)
      await store.db
        .insertInto("transactions")
        .values(rows.slice(i, i + 500))
        .execute();
  }
  const row = (
    firm: number,
    amount: number,
    at: number,
    reference: string,
    extra: Partial<Row> = {},
  ): Row => ({
    ...depositRow({ firmId: firm, accountId, amount, reference }, at),
    status: "approved",
    ...extra,
  });

  it("gives the firm's approved deposits of the window only, the newest `limit`, smallest first", async () => {
    const [a, b] = firms as [number, number];
    await insert([
      // Before the window.
      row(a, 1, NOW - 40 * DAY, "old"),
      // In it: approved deposits, and what never counts.
      row(a, 500, NOW - 20 * DAY, "w1"),
      row(a, 300, NOW - 10 * DAY, "w2"),
      row(a, 400, NOW - 5 * DAY, "w3"),
      row(a, 9_000, NOW - 4 * DAY, "pending", { status: "pending" }),
      row(a, 8_000, NOW - 3 * DAY, "rejected", { status: "rejected" }),
      row(a, 7_000, NOW - 2 * DAY, "withdrawal", { type: "withdrawal" }),
      row(b, 6_000, NOW - 1 * DAY, "other firm"),
    ]);
    const repo = createUsualAmountRepository(store.db);
    expect(await repo.recentApprovedDeposits(a, NOW - 30 * DAY, 10)).toEqual([300, 400, 500]);
    // The newest two: w3 and w2.
    expect(await repo.recentApprovedDeposits(a, NOW - 30 * DAY, 2)).toEqual([300, 400]);
    expect(await repo.recentApprovedDeposits(b, NOW - 30 * DAY, 10)).toEqual([6_000]);
    // Nothing made since: no rows, not the firm's history.
    expect(await repo.recentApprovedDeposits(a, NOW + DAY, 10)).toEqual([]);
  });

  /** The planner's words for a query, with its parameters. */
  async function planOf(query: { sql: string; parameters: readonly unknown[] }): Promise<string> {
    const prefix = store.dialect === "sqlite" ? "EXPLAIN QUERY PLAN " : "EXPLAIN ";
    const plan = await store.db.executeQuery<Record<string, string>>(
      CompiledQuery.raw(`${prefix}${query.sql}`, [...query.parameters]),
    );
    return plan.rows.map((r) => r.detail ?? r["QUERY PLAN"]).join("\n");
  }

  it("reads from the window's first id (found by the date index) to the newest, never the firm's history", async () => {
    // Three firms, a year of days, the third firm's deposits most of them.
    const rows: Row[] = [];
    for (let i = 0; i < 30_000; i++) {
      const firm = firms[i % 10 === 0 ? i % 3 : 2] as number;
      rows.push(
        row(firm, 1_000 + (i % 97), NOW - 365 * DAY + Math.floor((i * 365 * DAY) / 30_000), `y-${i}`),
      );
    }
    await insert(rows);
    await sql`ANALYZE`.execute(store.db);
    const since = NOW - 30 * DAY;
    const start = await planOf(windowStartQuery(store.db, since).compile());
    const first = Number((await windowStartQuery(store.db, since).executeTakeFirstOrThrow()).id);
    const small = await planOf(recentApprovedQuery(store.db, firms[0] as number, first, 1000).compile());
    const big = await planOf(recentApprovedQuery(store.db, firms[2] as number, first, 1000).compile());
    if (kind === "sqlite") {
      expect(start).toMatch(
        /SEARCH transactions USING COVERING INDEX transactions_created_idx \(created_at>\?\)/,
      );
      for (const plan of [small, big]) {
        expect(plan).toMatch(
          /SEARCH transactions USING INDEX transactions_firm_idx \(firm_id=\? AND id>\?\)/,
        );
        expect(plan).not.toMatch(/TEMP B-TREE/);
      }
      return;
    }
    expect(start).toMatch(/Index Scan using transactions_created_idx/);
    // Either the firm's index or the ids themselves, from the window's first id to the newest (on
    // a table this small the planner may find the ids cheaper even for a small firm).
    for (const plan of [small, big]) {
      expect(plan).toMatch(/Index Scan Backward using transactions_(firm_idx|pkey) on transactions\s/);
      expect(plan).toMatch(/Index Cond: \(.*id >= '?\d+'?(::bigint)?\)/);
    }
    for (const plan of [start, small, big]) expect(plan).not.toMatch(/Seq Scan|Sort/);
  });
});
