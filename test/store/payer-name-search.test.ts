import { CompiledQuery } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { nameWords } from "../../src/domain/name-search.js";
import { createNameKeyJob, fillPayerNameKeys, type NameKeyJob } from "../../src/jobs/name-keys.js";
import type { Store } from "../../src/store/engine/open.js";
import { setNameKeysQuery } from "../../src/store/transactions/transaction-searches.js";
import {
  createTransactionRepository,
  type TransactionRepository,
} from "../../src/store/transactions/transactions.js";
import { STORES, type StoreKind } from "../support/harness.js";
import { eventually } from "../support/receiver.js";
import { depositRow, insertAccount, insertFirm } from "../support/rows.js";
import { freshStore } from "../support/store.js";

/**
 * Searching payers by name on a real store of each kind: rows written before `payer_name_key`
 * (as an older version wrote them: no key) are filled in at start, then found like new ones.
 */
describe.each(STORES)("payer name search (%s)", (kind: StoreKind) => {
  let close: () => Promise<void>;
  let store: Store;
  let repo: TransactionRepository;
  let firmId: number;
  let accountId: number;
  const NOW = 1_800_000_000_000;
  let seq = 0;

  beforeAll(async () => {
    ({ store, close } = await freshStore(kind));
    repo = createTransactionRepository(store.db, store.prepared, store.dialect, { batched: false });
    firmId = await insertFirm(store, NOW);
    accountId = await insertAccount(store, NOW);
  });
  afterAll(async () => {
    await close?.();
  });

  /** A deposit as a version before the key wrote it. */
  async function oldRow(first: string, last: string, middle: string | null = null): Promise<number> {
    seq += 1;
    const row = depositRow({ firmId, accountId, amount: 15_000, reference: `old-${seq}` }, NOW);
    const inserted = await store.db
      .insertInto("transactions")
      .values({ ...row, first_name: first, last_name: last, middle_name: middle, status: "approved" })
      .returning("id")
      .executeTakeFirstOrThrow();
    return Number(inserted.id);
  }
  const found = async (query: string) =>
    (await repo.list({ firmId, nameWords: nameWords(query) })).map((r) => r.id).sort((a, b) => a - b);

  it("fills in every keyless row once, in batches, and then finds them by any folding of the name", async () => {
    const sukru = await oldRow("Şükrü", "Öztürk");
    const ismail = await oldRow("İSMAİL", "Işık", "Can");
    const many: number[] = [];
    // More than one batch (500), so the cursor moves on.
    for (let i = 0; i < 520; i++) many.push(await oldRow("Ali", `Veli${i}`));
    expect(await found("sukru")).toEqual([]);

    expect(await fillPayerNameKeys(repo)).toBe(522);
    expect(await fillPayerNameKeys(repo)).toBe(0);

    expect(await found("SUKRU OZTURK")).toEqual([sukru]);
    expect(await found("öztürk şükrü")).toEqual([sukru]);
    expect(await found("ozt")).toEqual([sukru]);
    expect(await found("ismail isik")).toEqual([ismail]);
    expect(await found("İsmail can")).toEqual([ismail]);
    // A word matches where a word of the name begins, not inside one.
    expect(await found("zturk")).toEqual([]);
    expect(await found("sukru veli")).toEqual([]);
    expect((await found("veli51")).length).toBe(11); // Veli51 and Veli510 to Veli519
    expect(await found("ali veli519")).toEqual([many[519]]);
  });

  it.runIf(kind === "sqlite")(
    "a batch's rows are looked up by id, whatever the statistics say of the keyless rows",
    async () => {
      // The store's statistics were taken by its migrations, on an empty table: the state after an
      // upgrade, when a walk of the keyless rows' index looks cheap to the planner.
      for (let i = 0; i < 50; i++) await oldRow("Plan", `Row${i}`);
      const keys = (await repo.withoutNameKey(0, 10)).map((r) => ({ id: r.id, key: " plan" }));
      const compiled = setNameKeysQuery("sqlite", keys).compile(store.db);
      const plan = await store.db.executeQuery<{ detail: string }>(
        CompiledQuery.raw(`EXPLAIN QUERY PLAN ${compiled.sql}`, [...compiled.parameters]),
      );
      const steps = plan.rows.map((r) => r.detail);
      expect(
        steps.some((d) => /^SEARCH t USING INTEGER PRIMARY KEY/.test(d)),
        steps.join("; "),
      ).toBe(true);
      expect(
        steps.some((d) => /^SCAN t\b/.test(d)),
        steps.join("; "),
      ).toBe(false);
      await repo.setNameKeys(keys);
      expect((await repo.withoutNameKey(0, 100)).length).toBe(40);
      await fillPayerNameKeys(repo);
    },
  );

  it("a key already written is kept, and only keyless rows are read", async () => {
    const id = await oldRow("Ayşe", "Kaya");
    await store.db
      .updateTable("transactions")
      .set({ payer_name_key: " kept" })
      .where("id", "=", id)
      .execute();
    expect(await repo.withoutNameKey(0, 10)).toEqual([]);
    await repo.setNameKeys([{ id, key: " other" }]);
    const row = await repo.get(id);
    expect(row?.payer_name_key).toBe(" kept");
  });
});

describe("the background job that fills in payer name keys", () => {
  /** A repository of `n` keyless rows in memory: the job's own logic, batch by batch. */
  function rows(count: number) {
    const keys = new Map<number, string>();
    let batches = 0;
    let n = count;
    const repo = {
      async withoutNameKey(afterId: number, limit: number) {
        const out = [];
        for (let id = afterId + 1; id <= n && out.length < limit; id++)
          if (!keys.has(id)) out.push({ id, first_name: "Şükrü", middle_name: null, last_name: `Öz${id}` });
        return out;
      },
      async setNameKeys(k: readonly { id: number; key: string }[]) {
        batches += 1;
        for (const { id, key } of k) keys.set(id, key);
      },
    };
    return {
      repo,
      keys,
      batches: () => batches,
      grow: (to: number) => {
        n = to;
      },
    };
  }

  it("fills every row once, then reports how many; a stop comes between two batches", async () => {
    const r = rows(1_203);
    let first: NameKeyJob | undefined;
    const filled = await new Promise<number>((resolve) => {
      first = createNameKeyJob({ transactions: r.repo, done: resolve, failed: () => {} });
      first.start();
      first.start();
    });
    await first?.stop();
    expect(filled).toBe(1_203);
    expect(r.keys.size).toBe(1_203);
    expect(r.keys.get(7)).toBe(" sukru oz7");
    expect(r.batches()).toBe(3);

    const later = rows(1_203);
    const done: number[] = [];
    const job = createNameKeyJob({ transactions: later.repo, done: (n) => done.push(n), failed: () => {} });
    job.start();
    await job.stop();
    expect(done).toEqual([500]);
    expect(later.batches()).toBe(1);
  });

  it("passes again later: rows an older instance wrote meanwhile are filled in; after a failure too", async () => {
    const r = rows(3);
    const passes: number[] = [];
    let failNext = false;
    const failures: unknown[] = [];
    const job = createNameKeyJob({
      transactions: {
        ...r.repo,
        setNameKeys: async (k) => {
          if (failNext) {
            failNext = false;
            throw new Error("deadlock detected");
          }
          return r.repo.setNameKeys(k);
        },
      },
      done: (n) => passes.push(n),
      failed: (err) => failures.push(err),
      againMs: 20,
    });
    job.start();
    await eventually(async () => (passes.length >= 2 ? true : undefined));
    expect(passes.slice(0, 2)).toEqual([3, 0]);
    // Rows 4 and 5 written without a key after the first pass; the next pass fails, the one after fills.
    r.grow(5);
    failNext = true;
    await eventually(async () => (r.keys.size === 5 ? true : undefined));
    expect(String(failures[0])).toContain("deadlock");
    await job.stop();
    const after = passes.length;
    // Stopped: no pass comes in what would be five (20 ms apart).
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(passes.length).toBe(after);
  });

  it("stopped before it starts, it fills nothing; a failure is reported, not thrown", async () => {
    const r = rows(10);
    const job = createNameKeyJob({ transactions: r.repo, done: () => {}, failed: () => {} });
    await job.stop();
    job.start();
    await job.stop();
    expect(r.keys.size).toBe(0);

    const failures: unknown[] = [];
    const broken = createNameKeyJob({
      transactions: { ...r.repo, setNameKeys: async () => Promise.reject(new Error("disk full")) },
      done: () => {},
      failed: (err) => failures.push(err),
    });
    broken.start();
    await broken.stop();
    expect(String(failures[0])).toContain("disk full");
  });
});
