import { CompiledQuery, sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dueDeposits } from "../../src/store/decisions/decisions.js";
import type { Store } from "../../src/store/engine/open.js";
import { operatorIndexes } from "../../src/store/migrations/20261128T1000_operator_indexes.js";
import { purgeIndexes } from "../../src/store/migrations/20261128T1100_purge_indexes.js";
import { amountDayIndexes } from "../../src/store/migrations/20261201T1000_amount_day_indexes.js";
import { summaryHours } from "../../src/store/migrations/20261203T1000_summary_hours.js";
import { type ResolvedFilter, searchQuery } from "../../src/store/transactions/transaction-searches.js";
import {
  createTransactionRepository,
  type TransactionRepository,
} from "../../src/store/transactions/transactions.js";
import { STORES, type StoreKind } from "../support/harness.js";
import { eventually } from "../support/receiver.js";
import { depositRow, insertAccount, insertFirm } from "../support/rows.js";
import { freshStore } from "../support/store.js";

/**
 * The indexes behind the operators' searches (migration 20261128T1000_operator_indexes), on a real
 * store of each kind: built, valid, chosen by the planner, and, on PostgreSQL, built again when a
 * crash left one half-made. The searches' results are the subject of the API tests; here, that the
 * store reaches them without reading the table.
 */
/**
 * The indexes each store ends with: PostgreSQL's amounts by their time replace the amounts by id;
 * on both, the decision times with the creation time and firm replace the decision times alone.
 */
const namesOf = (kind: StoreKind) => {
  const amounts = kind === "postgres" ? (amountDayIndexes.indexes ?? []) : [];
  const later = [...amounts, ...(summaryHours.indexes ?? [])];
  const replaced = new Set(later.map((i) => i.replaces));
  return [operatorIndexes, purgeIndexes]
    .flatMap((m) => m.indexes ?? [])
    .filter((i) => !replaced.has(i.name))
    .concat(later)
    .map((i) => i.name);
};

describe.each(STORES)("operator search indexes (%s)", (kind: StoreKind) => {
  let close: () => Promise<void>;
  let store: Store;
  let repo: TransactionRepository;
  const firms: number[] = [];
  let accountId: number;
  const NOW = 1_800_000_000_000;

  beforeAll(async () => {
    ({ store, close } = await freshStore(kind));
    repo = createTransactionRepository(store.db, store.prepared, store.dialect, { batched: false });
    for (let i = 0; i < 3; i++) firms.push(await insertFirm(store, NOW));
    accountId = await insertAccount(store, NOW);
  });
  afterAll(async () => {
    await close?.();
  });

  async function indexes(): Promise<Map<string, boolean>> {
    const rows =
      store.dialect === "sqlite"
        ? (
            await sql<{
              name: string;
            }>`SELECT name FROM sqlite_master WHERE type = 'index'`.execute(store.db)
          ).rows.map((r) => ({ name: r.name, valid: true }))
        : (
            await sql<{ name: string; valid: boolean }>`SELECT c.relname AS name, i.indisvalid AS valid
                FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
                WHERE c.relnamespace = current_schema()::regnamespace`.execute(store.db)
          ).rows;
    return new Map(rows.map((r) => [r.name, r.valid]));
  }

  it("every one is built and valid", async () => {
    const built = await indexes();
    for (const name of namesOf(kind)) expect(built.get(name), name).toBe(true);
    const absent = kind === "sqlite" ? "transactions_amount_day_idx" : "transactions_amount_idx";
    expect(built.get(absent)).toBeUndefined();
    // The names' index is PostgreSQL's (SQLite has its full-text table): the trigrams with the day,
    // in place of the trigrams alone.
    expect(built.get("transactions_name_day_idx")).toBe(kind === "postgres" ? true : undefined);
    expect(built.get("transactions_name_trgm_idx")).toBeUndefined();
    expect(built.get("transactions_decided_idx")).toBeUndefined();
  });

  it.runIf(kind === "postgres")(
    "a payer's name is found through the trigram index, with its days",
    async () => {
      await sql`INSERT INTO transactions (firm_id, reference, type, status, amount, first_name, last_name,
        username, user_id, bank_code, iban, iban_valid, callback_url, created_at, updated_at, payer_name_key)
      SELECT ${firms[2]}, 'name-' || g, 'withdrawal', 'approved', 100, 'A', 'B', 'ab', 'n-' || g,
        'AKBANK', 'TR00', 0, 'http://127.0.0.1:9/cb', ${NOW}, ${NOW}, ' ali veli' || g
      FROM generate_series(1, 20000) AS g`.execute(store.db);
      await sql`ANALYZE transactions`.execute(store.db);
      expect(await planOf({ nameWords: ["veli1234"] })).toMatch(/transactions_name_day_idx/);
      // With dates, the index takes the days too: only those days' matches are handed over.
      const dated = await planOf({ nameWords: ["veli1234"], from: NOW - 86_400_000, nameDays: true });
      expect(dated).toMatch(/Bitmap Index Scan on transactions_name_day_idx/);
      expect(dated).toMatch(/Index Cond: .*created_at \/ 86400000\)\)::integer >= /);
      // A queue, or a week or less: the name checked on the rows the pending or the dates' index
      // finds, never the name's matches of every year (the planner took them at 10 million rows).
      const queue = await planOf({ nameWords: ["veli1234"], status: "pending", nameUnindexed: true });
      expect(queue).toMatch(/transactions_pending_idx/);
      expect(queue).not.toMatch(/name_day_idx/);
      // (An hour after this test's rows, so that the dates select few.)
      const later = { from: NOW + 1_000, to: NOW + 3_600_000 };
      const hour = await planOf({ nameWords: ["veli1234"], ...later, datesFirst: true, nameUnindexed: true });
      expect(hour).toMatch(/transactions_created_idx/);
      expect(hour).not.toMatch(/name_day_idx/);
      // The same rows either way: the hour holding them finds them by the name checked on its rows.
      const found = await repo.list({ nameWords: ["veli1234"], from: NOW, to: NOW + 3_600_000, limit: 50 });
      expect(found).toHaveLength(11);
      // An amount in a search's window: the amount's rows of those days only.
      const amount = await planOf({ amountMinor: 10_007, amountIn: "amount", from: NOW - 86_400_000 });
      expect(amount).toMatch(/transactions_amount_day_idx/);
      expect(amount).toMatch(/Index Cond: \(\(amount = .*\) AND \(created_at >= /);
      expect((await repo.list({ nameWords: ["veli1234"] })).map((r) => r.reference).sort()).toEqual([
        "name-1234",
        "name-12340",
        "name-12341",
        "name-12342",
        "name-12343",
        "name-12344",
        "name-12345",
        "name-12346",
        "name-12347",
        "name-12348",
        "name-12349",
      ]);
    },
  );

  /** The planner's words for how it runs one of the repository's searches, with its parameters. */
  async function planOf(filter: ResolvedFilter): Promise<string> {
    const query = searchQuery(store.db, filter).compile();
    const prefix = store.dialect === "sqlite" ? "EXPLAIN QUERY PLAN " : "EXPLAIN ";
    const plan = await store.db.executeQuery<Record<string, string>>(
      CompiledQuery.raw(`${prefix}${query.sql}`, [...query.parameters]),
    );
    return plan.rows.map((r) => r.detail ?? r["QUERY PLAN"]).join("\n");
  }

  it.runIf(kind === "sqlite")(
    "with the statistics the store takes by itself, a user's rows in a big firm are read through the user's index",
    async () => {
      // Three firms, 3,000 rows, users of a few rows each: firm_id selects a third, user_id a handful.
      const rows = Array.from({ length: 3_000 }, (_, i) => ({
        ...depositRow(
          { firmId: firms[i % 3] as number, accountId, amount: 10_000 + (i % 50), reference: `ix-${i}` },
          NOW + i,
        ),
        user_id: `user-${i % 600}`,
        status: "approved" as const,
      }));
      for (let i = 0; i < rows.length; i += 500)
        await store.db
          .insertInto("transactions")
          .values(rows.slice(i, i + 500))
          .execute();
      // The thread runs ANALYZE two seconds after it opened (sqlite_stat1 appears), then every ten
      // minutes (sqlite-thread.ts); the next one is taken here rather than waited for.
      await eventually(async () => {
        const stat = await sql<{ n: number }>`SELECT count(*) AS n FROM sqlite_master
          WHERE name = 'sqlite_stat1'`.execute(store.db);
        return stat.rows[0]?.n === 1 ? true : undefined;
      }, 15_000);
      await sql`ANALYZE`.execute(store.db);
      expect(await planOf({ firmId: firms[0], userId: "user-3" })).toMatch(/transactions_user_idx/);
      // All of them approved: the newest first, not all of them sorted.
      expect(await planOf({ status: "approved", limit: 200 })).not.toMatch(/TEMP B-TREE/);
      // The queue: the pending index, in its order.
      expect(
        await planOf({ status: "pending", type: "deposit", order: "oldest", limit: 500, liveOnly: true }),
      ).toMatch(/USING INDEX transactions_pending_idx/);
      expect(await planOf({ reference: "ix-7" })).toMatch(/transactions_reference_idx/);
      // Auto-cancel's scan every 15 s: the pending rows, not a firm's history or years of dates.
      const due = dueDeposits("sqlite", NOW, 20).compile(store.db);
      const duePlan = (
        await store.db.executeQuery<{ detail: string }>(
          CompiledQuery.raw(`EXPLAIN QUERY PLAN ${due.sql}`, [...due.parameters]),
        )
      ).rows
        .map((r) => r.detail)
        .join("\n");
      expect(duePlan).toMatch(/SCAN t USING INDEX transactions_pending_idx/);
      expect(duePlan).not.toMatch(/transactions_(firm|created)_idx/);
      // A letter that SQLite's tokenizer tables (Unicode 6.1) call a spacing mark stays in its word.
      const taiLue = "k\u19b0k";
      const marked = await store.db
        .insertInto("transactions")
        .values({
          ...depositRow({ firmId: firms[2] as number, accountId, amount: 7_000, reference: "tai-lue" }, NOW),
          status: "approved",
          payer_name_key: ` ali ${taiLue}`,
        })
        .returning("id")
        .executeTakeFirstOrThrow();
      expect((await repo.list({ nameWords: [taiLue] })).map((r) => r.id)).toEqual([Number(marked.id)]);
      // A name: the full-text index's candidates, by their ids, not a walk of the table.
      expect(await planOf({ nameWords: ["ali"], nameIndex: true })).toMatch(
        /SEARCH transactions USING INTEGER PRIMARY KEY[\s\S]*SCAN transaction_names VIRTUAL TABLE/,
      );
      expect(await planOf({ amountMinor: 10_007 })).toMatch(/transactions_amount_idx/);
      // A name with an amount: the amount's rows, the name checked on them; not a walk from the newest.
      for (const amountIn of ["amount", "original_amount"] as const)
        expect(await planOf({ nameWords: ["ali"], amountMinor: 10_007, amountIn })).toMatch(
          amountIn === "amount" ? /transactions_amount_idx/ : /transactions_sent_amount_idx/,
        );
      expect(await planOf({ iban: "tr33 0006 1005 1978 6457 8413 26" })).toMatch(/transactions_iban_key_idx/);
      expect((await repo.list({ firmId: firms[0], userId: "user-3" })).map((r) => r.user_id)).toEqual(
        Array(5).fill("user-3"),
      );
    },
  );

  it("a date range alone: the page's ids from the date index, the same rows as the filter gives", async () => {
    // Ids out of step with their times (another instance's clock, a clock set back): the range is
    // the times', the order the ids'.
    const start = NOW + 50_000_000;
    const rows = Array.from({ length: 60 }, (_, i) => ({
      ...depositRow(
        { firmId: firms[i % 3] as number, accountId, amount: 5_000, reference: `day-${i}` },
        start + ((i * 37) % 60) * 1_000,
      ),
      status: "approved" as const,
    }));
    const ids = (await store.db.insertInto("transactions").values(rows).returning("id").execute()).map((r) =>
      Number(r.id),
    );
    const timeOf = new Map(ids.map((id, i) => [id, rows[i]?.created_at as number]));
    const from = start + 10_000;
    const to = start + 40_000;
    const within = ids.filter((id) => (timeOf.get(id) as number) >= from && (timeOf.get(id) as number) < to);
    const newest = [...within].sort((a, b) => b - a);
    expect(within).toHaveLength(30);
    expect((await repo.list({ from, to, limit: 10 })).map((r) => r.id)).toEqual(newest.slice(0, 10));
    expect((await repo.list({ from, to, limit: 10, order: "oldest" })).map((r) => r.id)).toEqual(
      [...newest].reverse().slice(0, 10),
    );
    const beforeId = newest[9] as number;
    expect((await repo.list({ from, to, beforeId, limit: 100 })).map((r) => r.id)).toEqual(newest.slice(10));
    expect((await repo.list({ to: from + 1, limit: 1_000 })).every((r) => r.created_at < from + 1)).toBe(
      true,
    );
    // With another filter the rows are read as before.
    expect((await repo.list({ from, to, firmId: firms[0], limit: 100 })).map((r) => r.id)).toEqual(
      newest.filter((id) => ids.indexOf(id) % 3 === 0),
    );
    if (kind === "sqlite")
      expect(await planOf({ from, to, limit: 200 })).toMatch(/COVERING INDEX transactions_created_idx/);
  });

  it("a common name with a rare other condition: every match found, in order, across the index's chunks", async () => {
    // 5,000 rows of one name, every 37th rejected: the newest rejected ones lie past the first
    // chunks of the full-text index's matches (SQLite walks them a chunk at a time).
    const rows = Array.from({ length: 5_000 }, (_, i) => ({
      ...depositRow({ firmId: firms[1] as number, accountId, amount: 9_000, reference: `zk-${i}` }, NOW + i),
      status: i % 37 === 0 ? ("rejected" as const) : ("approved" as const),
      first_name: "Zeynep",
      last_name: "Kaya",
      payer_name_key: " zeynep kaya",
    }));
    const ids: number[] = [];
    for (let i = 0; i < rows.length; i += 500)
      for (const r of await store.db
        .insertInto("transactions")
        .values(rows.slice(i, i + 500))
        .returning("id")
        .execute())
        ids.push(Number(r.id));
    const rejected = ids.filter((_, i) => i % 37 === 0);
    const newest = [...rejected].sort((a, b) => b - a);
    const found = (f: Parameters<TransactionRepository["list"]>[0]) =>
      repo.list(f).then((r) => r.map((x) => x.id));
    expect(await found({ nameWords: ["zeyn", "kay"], status: "rejected", limit: 1_000 })).toEqual(newest);
    expect(await found({ nameWords: ["zeynep"], status: "rejected", limit: 50, order: "oldest" })).toEqual(
      [...newest].reverse().slice(0, 50),
    );
    expect(
      await found({ nameWords: ["kaya"], status: "rejected", limit: 20, beforeId: newest[100] as number }),
    ).toEqual(newest.slice(101, 121));
    // The name alone: the newest page, from the first chunk.
    expect(await found({ nameWords: ["zeynep"], limit: 200 })).toEqual(
      [...ids].sort((a, b) => b - a).slice(0, 200),
    );
    expect(await found({ nameWords: ["zeynepp"], limit: 200 })).toEqual([]);

    // A name with an amount: the same rows whichever way the store reaches them (SQLite: through
    // the name's rows below 50,000 of them, through the amount's above).
    const more = [
      ...Array.from({ length: 40 }, (_, i) => ({
        name: " zeynep kaya",
        amount: 7_777,
        at: NOW + 10_000 + i,
      })),
      ...Array.from({ length: 20 }, (_, i) => ({
        name: " selin ozer",
        amount: i % 2 === 0 ? 7_777 : 1_234,
        at: NOW + 20_000 + i,
      })),
    ];
    const moreIds = (
      await store.db
        .insertInto("transactions")
        .values(
          more.map((m, i) => ({
            ...depositRow(
              { firmId: firms[1] as number, accountId, amount: m.amount, reference: `za-${i}` },
              m.at,
            ),
            status: "approved" as const,
            payer_name_key: m.name,
          })),
        )
        .returning("id")
        .execute()
    ).map((r) => Number(r.id));
    // One approved as sent, another sum than asked: found by either.
    const sent = moreIds[41] as number;
    await store.db
      .updateTable("transactions")
      .set({ amount: 5_000, original_amount: 7_777 })
      .where("id", "=", sent)
      .execute();
    const of = (name: string, amount: number, from = NOW) =>
      moreIds
        .filter(
          (id, i) =>
            more[i]?.name === name &&
            (id === sent || more[i]?.amount === amount) &&
            (more[i]?.at ?? 0) >= from,
        )
        .sort((a, b) => b - a);
    expect(await found({ nameWords: ["selin"], amountMinor: 7_777, from: NOW })).toEqual(
      of(" selin ozer", 7_777),
    );
    expect(await found({ nameWords: ["selin", "oz"], amountMinor: 1_234, from: NOW })).toEqual(
      of(" selin ozer", 1_234).filter((id) => id !== sent),
    );
    expect(await found({ nameWords: ["zeynep"], amountMinor: 7_777, from: NOW })).toEqual(
      of(" zeynep kaya", 7_777),
    );
    // The window's start leaves the older ones out either way.
    const later = NOW + 20_010;
    expect(await found({ nameWords: ["selin"], amountMinor: 7_777, from: later })).toEqual(
      of(" selin ozer", 7_777, later),
    );
  });

  it.runIf(kind === "postgres")(
    "an index whose extension was missing when its migration ran is built by the next migrate",
    async () => {
      expect(await store.missingIndexes()).toEqual([]);
      await sql`DROP INDEX transactions_name_day_idx`.execute(store.db);
      expect(await store.missingIndexes()).toEqual(["transactions_name_day_idx (pg_trgm, btree_gin)"]);
      expect(await store.migrate()).toEqual([]);
      expect(await store.missingIndexes()).toEqual([]);
      // The index wanted, not the one it replaced.
      expect((await indexes()).get("transactions_name_day_idx")).toBe(true);
      expect((await indexes()).get("transactions_name_trgm_idx")).toBeUndefined();
    },
  );

  it.runIf(kind === "postgres")(
    "on a large table (built CONCURRENTLY), an index a crash left half-built is dropped and built again by the next migrate",
    async () => {
      const name = "transactions_firm_idx";
      // Past the size from which indexes are built CONCURRENTLY (open.ts): 60,000 withdrawals.
      await sql`INSERT INTO transactions (firm_id, reference, type, status, amount, first_name, last_name,
          username, user_id, bank_code, iban, iban_valid, callback_url, created_at, updated_at)
        SELECT ${firms[1]}, 'big-' || g, 'withdrawal', 'approved', 100 + g % 1000, 'A', 'B', 'ab', 'u-' || g,
          'AKBANK', 'TR00', 0, 'http://127.0.0.1:9/cb', ${NOW}, ${NOW}
        FROM generate_series(1, 60000) AS g`.execute(store.db);
      await sql.raw(`DROP INDEX ${name}`).execute(store.db);
      // A unique build over type fails on these rows, and CONCURRENTLY leaves it behind, invalid.
      await expect(
        sql.raw(`CREATE UNIQUE INDEX CONCURRENTLY ${name} ON transactions (type)`).execute(store.db),
      ).rejects.toThrow();
      expect((await indexes()).get(name)).toBe(false);
      await store.db.deleteFrom("schema_migrations").where("version", "=", operatorIndexes.version).execute();

      expect(await store.migrate()).toEqual([operatorIndexes.version]);
      expect((await indexes()).get(name)).toBe(true);
      const definition = await sql<{ def: string }>`SELECT pg_get_indexdef(${name}::regclass) AS def`.execute(
        store.db,
      );
      expect(definition.rows[0]?.def).toMatch(
        /^CREATE INDEX transactions_firm_idx ON \S*transactions USING btree \(firm_id, id\)$/,
      );
    },
  );
});
