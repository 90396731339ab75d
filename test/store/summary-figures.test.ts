import fc from "fast-check";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startOfTurkeyDay } from "../../src/domain/turkey-time.js";
import type { Store } from "../../src/store/engine/open.js";
import { summaryHours } from "../../src/store/migrations/20261203T1000_summary_hours.js";
import type { HourTotal } from "../../src/store/transactions/summary-figures.js";
import {
  createTransactionRepository,
  type TransactionRepository,
} from "../../src/store/transactions/transactions.js";
import { STORES, type StoreKind } from "../support/harness.js";
import { depositRow, insertAccount, insertFirm } from "../support/rows.js";
import { freshStore, undoMigration } from "../support/store.js";

/**
 * The console summary's totals (store/transactions/summary-figures.ts) are what a plain reading of the rows
 * gives, whatever was inserted, decided, changed or deleted: on SQLite they come from the hours'
 * buckets the triggers keep (migration 20261203T1000_summary_hours), on PostgreSQL from the rows.
 */
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const START = startOfTurkeyDay(Date.UTC(2027, 2, 1, 12));

const insertOp = fc.record({
  kind: fc.constant("insert" as const),
  firm: fc.integer({ min: 0, max: 2 }),
  type: fc.constantFrom("deposit" as const, "withdrawal" as const),
  status: fc.constantFrom("pending" as const, "approved" as const, "rejected" as const),
  amount: fc.integer({ min: 1, max: 99_999_999_999 }),
  // From two hours before the window's start: rows before it are not counted.
  at: fc.integer({ min: -2 * HOUR, max: 6 * HOUR }),
});
const pick = fc.integer({ min: 0, max: 1_000 });
const changeOp = fc.oneof(
  fc.record({
    kind: fc.constant("decide" as const),
    pick,
    status: fc.constantFrom("approved" as const, "rejected" as const, "pending" as const),
  }),
  fc.record({ kind: fc.constant("amount" as const), pick, amount: fc.integer({ min: 1, max: 9_999_999 }) }),
  fc.record({ kind: fc.constant("move" as const), pick, by: fc.integer({ min: -3 * HOUR, max: 3 * HOUR }) }),
  fc.record({ kind: fc.constant("touch" as const), pick }),
  fc.record({ kind: fc.constant("delete" as const), pick }),
);

describe.each(STORES)("the summary's totals (%s)", (kind: StoreKind) => {
  let close: () => Promise<void>;
  let store: Store;
  let repo: TransactionRepository;
  let accountId: number;
  let serial = 0;
  let run = 0;

  beforeAll(async () => {
    ({ store, close } = await freshStore(kind));
    repo = createTransactionRepository(store.db, store.prepared, store.dialect, { batched: false });
    accountId = await insertAccount(store, START);
  });
  afterAll(async () => {
    await close?.();
  });

  /** What the rows say: live firms' transactions since `since`, per type, status and hour. */
  async function plainReading(since: number): Promise<HourTotal[]> {
    const rows = await store.db
      .selectFrom("transactions as t")
      .innerJoin("firms as f", "f.id", "t.firm_id")
      .select(["t.type", "t.status", "t.amount", "t.created_at"])
      .where("t.created_at", ">=", since)
      .where("f.sandbox", "=", 0)
      .execute();
    const buckets = new Map<string, HourTotal>();
    for (const r of rows) {
      const hour = Math.floor((Number(r.created_at) - since) / HOUR);
      const key = `${r.type}|${r.status}|${hour}`;
      const b = buckets.get(key) ?? { type: r.type, status: r.status, hour, count: 0, volume: 0 };
      b.count += 1;
      b.volume += Number(r.amount);
      buckets.set(key, b);
    }
    return sorted([...buckets.values()]);
  }
  const sorted = (totals: HourTotal[]) =>
    [...totals].sort((a, b) =>
      `${a.type}|${a.status}|${a.hour}`.localeCompare(`${b.type}|${b.status}|${b.hour}`),
    );

  it("equal a plain reading of the rows after any inserts, decisions, changes and deletions", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(insertOp, { minLength: 1, maxLength: 25 }),
        fc.array(changeOp, { maxLength: 25 }),
        async (inserts, changes) => {
          // Each run a day of its own, later than the last run's: earlier runs' rows are before it.
          const since = START + run++ * 2 * DAY;
          const firms = [
            await insertFirm(store, since),
            await insertFirm(store, since),
            await insertFirm(store, since, { sandbox: 1 }),
          ];
          const ids: number[] = [];
          for (const op of inserts) {
            const row = await store.db
              .insertInto("transactions")
              .values({
                ...depositRow(
                  {
                    firmId: firms[op.firm] as number,
                    accountId,
                    amount: op.amount,
                    reference: `s-${serial++}`,
                  },
                  since + op.at,
                ),
                type: op.type,
                status: op.status,
              })
              .returning("id")
              .executeTakeFirstOrThrow();
            ids.push(Number(row.id));
          }
          for (const op of changes) {
            const id = ids[op.pick % ids.length] as number;
            const rows = store.db.updateTable("transactions").where("id", "=", id);
            if (op.kind === "decide") await rows.set({ status: op.status, decided_at: since }).execute();
            if (op.kind === "amount") await rows.set({ amount: op.amount }).execute();
            if (op.kind === "move") await rows.set({ created_at: sql`created_at + ${op.by}` }).execute();
            if (op.kind === "touch") await rows.set({ updated_at: since + 1 }).execute();
            if (op.kind === "delete")
              await store.db.deleteFrom("transactions").where("id", "=", id).execute();
          }
          expect(sorted(await repo.totalsSince(since))).toEqual(await plainReading(since));
        },
      ),
      { numRuns: kind === "sqlite" ? 60 : 25 },
    );
  });

  it("the median time to decision: the lower middle one, live firms' only, none when none was decided", async () => {
    const since = START + 500 * DAY;
    expect(await repo.medianDecisionMsSince(since)).toBeNull();
    const live = await insertFirm(store, since);
    const sandbox = await insertFirm(store, since, { sandbox: 1 });
    const decide = async (firmId: number, createdAt: number, decidedAt: number) => {
      await store.db
        .insertInto("transactions")
        .values({
          ...depositRow({ firmId, accountId, amount: 100, reference: `d-${serial++}` }, createdAt),
          status: "approved",
          decided_at: decidedAt,
        })
        .execute();
    };
    // Decided before the window: not counted, however long it took.
    await decide(live, since - DAY, since - 1);
    await decide(live, since, since + 40_000);
    expect(await repo.medianDecisionMsSince(since)).toBe(40_000);
    await decide(live, since + 1_000, since + 11_000);
    await decide(sandbox, since, since + 5);
    await decide(sandbox, since, since + 6);
    // 10 s and 40 s: the lower one.
    expect(await repo.medianDecisionMsSince(since)).toBe(10_000);
    await decide(live, since - HOUR, since + 2_000);
    // 10 s, 40 s, an hour: the middle one.
    expect(await repo.medianDecisionMsSince(since)).toBe(40_000);
  });

  it("ask for the start of an hour", async () => {
    await expect(repo.totalsSince(START + 1)).rejects.toThrow(/start of an hour/);
  });

  it.runIf(kind === "sqlite")(
    "a store that had transactions before the migration: those since yesterday's start are summed by it",
    async () => {
      await undoMigration(store, summaryHours.version, [
        "DROP TRIGGER transaction_hours_insert",
        "DROP TRIGGER transaction_hours_update",
        "DROP TRIGGER transaction_hours_delete",
        "DROP TABLE transaction_hours",
      ]);
      // The migration takes the database's clock: yesterday's start in Türkiye by today's. A few
      // seconds before Türkiye's midnight its yesterday could be a day later than the test's.
      const toMidnight = DAY - ((Date.now() + 3 * HOUR) % DAY);
      if (toMidnight < 10_000) await new Promise((r) => setTimeout(r, toMidnight + 100));
      const yesterday = startOfTurkeyDay(Date.now()) - DAY;
      const firmId = await insertFirm(store, yesterday);
      const at = [yesterday - HOUR, yesterday, Date.now() - 1_000];
      for (const [i, created] of at.entries())
        await store.db
          .insertInto("transactions")
          .values(depositRow({ firmId, accountId, amount: 100 + i, reference: `m-${serial++}` }, created))
          .execute();

      expect(await store.migrate()).toEqual([summaryHours.version]);
      expect(sorted(await repo.totalsSince(yesterday))).toEqual(await plainReading(yesterday));
      const before = await store.db
        .selectFrom("transaction_hours")
        .selectAll()
        .where("hour_start", "<", yesterday)
        .where("firm_id", "=", firmId)
        .execute();
      expect(before).toEqual([]);
      // And the triggers count from then on.
      await store.db
        .insertInto("transactions")
        .values(depositRow({ firmId, accountId, amount: 7, reference: `m-${serial++}` }, Date.now()))
        .execute();
      expect(sorted(await repo.totalsSince(yesterday))).toEqual(await plainReading(yesterday));
    },
  );
});
