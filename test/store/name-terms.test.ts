import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Store } from "../../src/store/engine/open.js";
import { nameMatch } from "../../src/store/transactions/name-terms.js";
import {
  createTransactionRepository,
  type TransactionRepository,
} from "../../src/store/transactions/transactions.js";
import { depositRow, insertAccount, insertFirm } from "../support/rows.js";
import { freshStore } from "../support/store.js";

/**
 * SQLite's full-text query for a name (store/transactions/name-terms.ts): a word of four letters or more is
 * asked as the indexed words it begins, a shorter one or one that begins too many as a prefix, and
 * the rows found are the same either way.
 */
describe("a payer name's full-text query (sqlite)", () => {
  let close: () => Promise<void>;
  let store: Store;
  let repo: TransactionRepository;
  let firmId: number;
  let accountId: number;
  const NOW = 1_800_000_000_000;
  let serial = 0;

  beforeAll(async () => {
    ({ store, close } = await freshStore("sqlite"));
    repo = createTransactionRepository(store.db, store.prepared, store.dialect, { batched: false });
    firmId = await insertFirm(store, NOW);
    accountId = await insertAccount(store, NOW);
  });
  afterAll(async () => {
    await close?.();
  });

  async function named(...keys: string[]): Promise<number[]> {
    const ids: number[] = [];
    for (const key of keys) {
      const [row] = await store.db
        .insertInto("transactions")
        .values({
          ...depositRow({ firmId, accountId, amount: 10_000, reference: `n-${serial++}` }, NOW + serial),
          status: "approved",
          payer_name_key: key,
        })
        .returning("id")
        .execute();
      ids.push(Number(row?.id));
    }
    return ids;
  }
  const found = (words: string[]) =>
    repo.list({ firmId, nameWords: words, limit: 1_000 }).then((rows) => rows.map((r) => r.id));

  it("asks a word of four letters or more as the words it begins, and finds the same rows", async () => {
    const [ayse, aysel, kaya] = await named(" ayse yilmaz", " aysel kaya", " mehmet kaya");
    expect(await nameMatch(store.db, ["ayse"])).toBe('("ayse" OR "aysel")');
    expect(await nameMatch(store.db, ["ays", "kaya"])).toBe('"ays"* AND ("kaya")');
    expect(await found(["ayse"])).toEqual([aysel, ayse]);
    expect(await found(["ays", "kaya"])).toEqual([aysel]);
    expect(await found(["kaya"])).toEqual([kaya, aysel]);
    // A word no indexed word begins: nothing, as a prefix would find.
    expect(await nameMatch(store.db, ["aysex"])).toBe('"aysex"*');
    expect(await found(["aysex"])).toEqual([]);
    // Letters beyond the Basic Multilingual Plane sort within the prefix's range too.
    const [far] = await named(" ayse\u{20000} demir");
    expect(await nameMatch(store.db, ["ayse"])).toBe('("ayse" OR "aysel" OR "ayse\u{20000}")');
    expect(await found(["ayse", "demir"])).toEqual([far]);
  });

  it("a word that begins more than fifty indexed words is asked as a prefix, with the same rows found", async () => {
    const ids = await named(...Array.from({ length: 60 }, (_, i) => ` zeyno${i} demir`));
    expect(await nameMatch(store.db, ["zeyno"])).toBe('"zeyno"*');
    expect(await found(["zeyno", "demir"])).toEqual([...ids].reverse());
    expect(await nameMatch(store.db, ["zeyno5"])).toBe(
      `(${["zeyno5", ...Array.from({ length: 10 }, (_, i) => `zeyno5${i}`)].map((t) => `"${t}"`).join(" OR ")})`,
    );
    expect(await found(["zeyno5"])).toEqual([
      ids[59],
      ids[58],
      ids[57],
      ids[56],
      ids[55],
      ids[54],
      ids[53],
      ids[52],
      ids[51],
      ids[50],
      ids[5],
    ]);
  });
});
