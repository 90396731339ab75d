import fc from "fast-check";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Store } from "../../src/store/engine/open.js";
import { transactionDays } from "../../src/store/migrations/20261202T1000_transaction_days.js";
import { idRangeOfDays } from "../../src/store/transactions/transaction-days.js";
import {
  createTransactionRepository,
  type TransactionRepository,
} from "../../src/store/transactions/transactions.js";
import { STORES, type StoreKind } from "../support/harness.js";
import { depositRow, insertAccount, insertFirm } from "../support/rows.js";
import { freshStore, undoMigration } from "../support/store.js";

/**
 * A name search with dates (SQLite walks the full-text index between the ids the window's days
 * hold: migration 20261202T1000_transaction_days) gives exactly the rows a plain reading of the
 * filter gives, whatever order the rows' ids and times are in. On PostgreSQL the same searches run
 * through its own name index: the same answers are asked of both.
 */
const DAY = 86_400_000;
const START = Date.UTC(2027, 0, 10);

describe.each(STORES)("a payer name search with dates (%s)", (kind: StoreKind) => {
  let close: () => Promise<void>;
  let store: Store;
  let repo: TransactionRepository;
  let accountId: number;
  let serial = 0;

  beforeAll(async () => {
    ({ store, close } = await freshStore(kind));
    repo = createTransactionRepository(store.db, store.prepared, store.dialect, { batched: false });
    accountId = await insertAccount(store, START);
  });
  afterAll(async () => {
    await close?.();
  });

  /** Rows of a new firm, inserted in the order given: their times need not rise with their ids. */
  async function insert(rows: readonly { day: number; ms: number; name: string }[]) {
    const firmId = await insertFirm(store, START);
    const inserted: { id: number; at: number; name: string }[] = [];
    for (const r of rows) {
      const at = START + r.day * DAY + r.ms;
      const [row] = await store.db
        .insertInto("transactions")
        .values({
          ...depositRow({ firmId, accountId, amount: 10_000, reference: `d-${serial++}` }, at),
          status: "approved",
          payer_name_key: r.name,
        })
        .returning("id")
        .execute();
      inserted.push({ id: Number(row?.id), at, name: r.name });
    }
    return { firmId, inserted };
  }

  const names = [" ayse yilmaz", " ayse kaya", " mehmet yilmaz"];

  it("finds exactly the window's rows of the name, newest or oldest first, a page at a time", async () => {
    const row = fc.record({
      day: fc.integer({ min: 0, max: 9 }),
      ms: fc.integer({ min: 0, max: DAY - 1 }),
      name: fc.constantFrom(...names),
    });
    await fc.assert(
      fc.asyncProperty(
        fc.array(row, { minLength: 1, maxLength: 40 }),
        fc.integer({ min: -1, max: 10 }),
        fc.integer({ min: 0, max: 4 }),
        fc.integer({ min: 0, max: DAY - 1 }),
        fc.constantFrom<"newest" | "oldest">("newest", "oldest"),
        fc.integer({ min: 1, max: 5 }),
        async (rows, fromDay, span, fromMs, order, limit) => {
          const { firmId, inserted } = await insert(rows);
          const from = START + fromDay * DAY + fromMs;
          const to = from + span * DAY + 3_600_000;
          const expected = inserted
            .filter((r) => r.name.includes(" ayse") && r.at >= from && r.at < to)
            .map((r) => r.id)
            .sort((a, b) => (order === "oldest" ? a - b : b - a));
          const found = await repo.list({ firmId, nameWords: ["ayse"], from, to, order, limit: 1_000 });
          expect(found.map((r) => r.id)).toEqual(expected);
          // The first page, and the next one before its last row (newest first).
          const page = await repo.list({ firmId, nameWords: ["ays"], from, to, order, limit });
          expect(page.map((r) => r.id)).toEqual(expected.slice(0, limit));
          const last = page.at(-1)?.id;
          if (order === "newest" && last !== undefined) {
            const next = await repo.list({ firmId, nameWords: ["ayse"], from, to, beforeId: last, limit });
            expect(next.map((r) => r.id)).toEqual(expected.slice(limit, 2 * limit));
          }
          expect(await repo.search({ firmId, nameWords: ["ayse"], from, to }).count()).toBe(expected.length);
          // One search, resolved once, walked a page at a time as an export walks it.
          const search = repo.search({ firmId, nameWords: ["ayse"], from, to, order: "newest" });
          const walked: number[] = [];
          // Bounded: a page that ignored its start would repeat forever.
          for (let before: number | undefined; walked.length <= expected.length; ) {
            const rows = await search.list({ ...(before === undefined ? {} : { beforeId: before }), limit });
            if (rows.length === 0) break;
            walked.push(...rows.map((r) => r.id));
            before = rows.at(-1)?.id;
          }
          expect(walked).toEqual(order === "newest" ? expected : [...expected].reverse());
          expect(await search.count()).toBe(expected.length);
          expect(await search.count(2)).toBe(Math.min(2, expected.length));
          // Only a start, or only an end.
          const since = inserted.filter((r) => r.name.includes(" ayse") && r.at >= from).map((r) => r.id);
          const fromOnly = await repo.list({ firmId, nameWords: ["ayse"], from, limit: 1_000 });
          expect(fromOnly.map((r) => r.id).sort((a, b) => a - b)).toEqual(since.sort((a, b) => a - b));
          const until = inserted.filter((r) => r.name.includes(" ayse") && r.at < to).map((r) => r.id);
          const toOnly = await repo.list({ firmId, nameWords: ["ayse"], to, limit: 1_000 });
          expect(toOnly.map((r) => r.id).sort((a, b) => a - b)).toEqual(until.sort((a, b) => a - b));
        },
      ),
      { numRuns: 40 },
    );
  });

  it("a row written late with an early time is found in its own day's window", async () => {
    const { firmId, inserted } = await insert([
      { day: 5, ms: 1_000, name: " ayse yilmaz" },
      { day: 6, ms: 1_000, name: " ayse yilmaz" },
      // Written last, dated before both: its id is the largest, its day the earliest.
      { day: 2, ms: 1_000, name: " ayse yilmaz" },
    ]);
    const late = inserted[2]?.id as number;
    const found = await repo.list({
      firmId,
      nameWords: ["ayse"],
      from: START + 2 * DAY,
      to: START + 3 * DAY,
    });
    expect(found.map((r) => r.id)).toEqual([late]);
    expect(
      await repo.list({ firmId, nameWords: ["ayse"], from: START + 3 * DAY, to: START + 5 * DAY }),
    ).toEqual([]);
  });

  it.runIf(kind === "sqlite")(
    "each day's bounds hold every row of the day, after inserts and a changed creation time",
    async () => {
      const { inserted } = await insert([
        { day: 30, ms: 5, name: " ayse yilmaz" },
        { day: 31, ms: 5, name: " ayse yilmaz" },
        { day: 30, ms: 9, name: " ayse yilmaz" },
      ]);
      const moved = inserted[0]?.id as number;
      await store.db
        .updateTable("transactions")
        .set({ created_at: START + 40 * DAY })
        .where("id", "=", moved)
        .execute();
      const outside = await sql<{ n: number }>`SELECT count(*) AS n FROM transactions t
        LEFT JOIN transaction_days d ON d.day = t.created_at / 86400000
        WHERE d.day IS NULL OR t.id < d.first_id OR t.id > d.last_id`.execute(store.db);
      expect(Number(outside.rows[0]?.n)).toBe(0);
      expect(await idRangeOfDays(store.db, START + 40 * DAY, START + 41 * DAY)).toEqual({
        first: moved,
        last: moved,
      });
      // A window no row was made in: an empty range.
      const empty = await idRangeOfDays(store.db, START + 400 * DAY, START + 401 * DAY);
      expect(empty.first).toBeGreaterThan(empty.last);
    },
  );

  it.runIf(kind === "sqlite")(
    "a store that had transactions before the migration: their days' bounds are taken by it",
    async () => {
      await undoMigration(store, transactionDays.version, [
        "DROP TRIGGER transaction_days_insert",
        "DROP TRIGGER transaction_days_update",
        "DROP TABLE transaction_days",
      ]);
      const { firmId, inserted } = await insert([
        { day: 60, ms: 5, name: " ayse yilmaz" },
        { day: 61, ms: 5, name: " ayse kaya" },
        { day: 60, ms: 9, name: " mehmet yilmaz" },
      ]);
      expect(await store.migrate()).toEqual([transactionDays.version]);
      const [first, , third] = inserted.map((r) => r.id);
      expect(await idRangeOfDays(store.db, START + 60 * DAY, START + 61 * DAY)).toEqual({
        first,
        last: third,
      });
      const found = await repo.list({
        firmId,
        nameWords: ["ayse"],
        from: START + 60 * DAY,
        to: START + 62 * DAY,
      });
      expect(found.map((r) => r.id)).toEqual(
        inserted
          .slice(0, 2)
          .map((r) => r.id)
          .reverse(),
      );
    },
  );
});
