import { randomBytes } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { sealContext } from "../../src/crypto/seal-context.js";
import { createSecretBox } from "../../src/crypto/secret-box.js";
import { keyedPaymentCode, legacyPaymentCode, type PaymentCodes } from "../../src/domain/payment-code.js";
import { loadPaymentCodes } from "../../src/main/payment-codes.js";
import type { Store } from "../../src/store/engine/open.js";
import { paymentCodeKey } from "../../src/store/migrations/20261204T1000_payment_code_key.js";
import { createPaymentCodeKeyRepository } from "../../src/store/statements/payment-code-keys.js";
import { STORES, type StoreKind } from "../support/harness.js";
import { depositRow, insertAccount, insertFirm } from "../support/rows.js";
import { freshStore, undoMigration } from "../support/store.js";

/**
 * The store's payment code key (migration 20261204T1000_payment_code_key, main/payment-codes.ts):
 * made once per store, by whichever start comes first, sealed with the master key; and the
 * deposits that were there before the migration keep their keyless codes.
 */
const T = 1_800_000_000_000;
const IDS = Array.from({ length: 50 }, (_, i) => i + 1);

type Fresh = Awaited<ReturnType<typeof freshStore>>;
let fresh: Fresh | undefined;
afterEach(async () => {
  await fresh?.close();
  fresh = undefined;
});

const load = (store: Store, key: Buffer) =>
  loadPaymentCodes(createPaymentCodeKeyRepository(store.db), createSecretBox(key), () => T);
const codesOf = (codes: PaymentCodes, ids: readonly number[]) => ids.map((id) => codes.of(id));

async function keyRow(store: Store) {
  return store.db.selectFrom("payment_code_keys").selectAll().execute();
}

describe.each(STORES)("the payment code key (%s)", (kind: StoreKind) => {
  it("is made by the first start, sealed for its row, and the same one every start after", async () => {
    fresh = await freshStore(kind);
    const master = randomBytes(32);
    expect(await keyRow(fresh.store)).toEqual([
      { id: 1, key_sealed: null, legacy_through: 0, sealed_at: null },
    ]);
    const first = await load(fresh.store, master);
    const [row] = await keyRow(fresh.store);
    expect(row).toMatchObject({ id: 1, legacy_through: 0, sealed_at: T });
    const sealed = row?.key_sealed as string;
    expect(sealed).toMatch(/^v2:/);
    // Sealed for its row (crypto/seal-context.ts), under the master key, never in the clear.
    const hex = createSecretBox(master).open(sealed, sealContext.paymentCodeKey(1));
    expect(hex).toMatch(/^[0-9a-f]{64}$/);
    expect(sealed).not.toContain(hex);
    expect(() => createSecretBox(master).open(sealed, sealContext.paymentCodeKey(2))).toThrow();
    // A fresh store: every deposit's code is keyed.
    expect(codesOf(first, IDS)).toEqual(IDS.map((id) => keyedPaymentCode(Buffer.from(hex, "hex"), id)));
    const again = await load(fresh.store, master);
    expect(codesOf(again, IDS)).toEqual(codesOf(first, IDS));
    expect((await keyRow(fresh.store))[0]?.key_sealed).toBe(sealed);
  });

  it("instances starting at once all take the one key recorded", async () => {
    fresh = await freshStore(kind);
    const master = randomBytes(32);
    // PostgreSQL: four instances, each its own pool; the embedded store admits one process, whose
    // starts may still overlap. Each reads the row before any records a key: all four seal one.
    const stores =
      kind === "postgres"
        ? [fresh.store, await fresh.open(), await fresh.open(), await fresh.open()]
        : [fresh.store, fresh.store, fresh.store, fresh.store];
    let read = 0;
    let allRead: () => void = () => {};
    const everyoneRead = new Promise<void>((resolve) => {
      allRead = resolve;
    });
    const all = await Promise.all(
      stores.map((s) => {
        const keys = createPaymentCodeKeyRepository(s.db);
        const racing = {
          ...keys,
          async read() {
            const stored = await keys.read();
            if (++read === stores.length) allRead();
            await everyoneRead;
            return stored;
          },
        };
        return loadPaymentCodes(racing, createSecretBox(master), () => T);
      }),
    );
    expect(read).toBe(stores.length);
    const expected = codesOf(all[0] as PaymentCodes, IDS);
    for (const codes of all) expect(codesOf(codes, IDS)).toEqual(expected);
    expect(await keyRow(fresh.store)).toHaveLength(1);
  });

  it("a key altered in the database stops the start with a message saying so", async () => {
    fresh = await freshStore(kind);
    const master = randomBytes(32);
    await load(fresh.store, master);
    // Another store's key, valid under the same master key but sealed for another row.
    const moved = createSecretBox(master).seal(
      randomBytes(32).toString("hex"),
      sealContext.paymentCodeKey(7),
    );
    await fresh.store.db.updateTable("payment_code_keys").set({ key_sealed: moved }).execute();
    await expect(load(fresh.store, master)).rejects.toThrow(/payment code key .* does not open/);
  });

  it("deposits there before the migration keep their keyless codes; later ones are keyed", async () => {
    fresh = await freshStore(kind);
    const { store } = fresh;
    await undoMigration(store, paymentCodeKey.version, ["DROP TABLE payment_code_keys"]);
    const firmId = await insertFirm(store, T);
    const accountId = await insertAccount(store, T);
    const rows = [1, 2, 3].map((k) =>
      depositRow({ firmId, accountId, amount: 100 * k, reference: `OLD-${k}` }, T),
    );
    const old = (await store.db.insertInto("transactions").values(rows).returning("id").execute()).map((r) =>
      Number(r.id),
    );
    // The newest one was removed since: its id was handed out with its keyless code all the same.
    const last = old.at(-1) as number;
    await store.db.deleteFrom("transactions").where("id", "=", last).execute();

    expect(await store.migrate()).toEqual([paymentCodeKey.version]);
    expect((await keyRow(store))[0]?.legacy_through).toBe(last);
    const codes = await load(store, randomBytes(32));
    for (const id of old) expect(codes.of(id)).toBe(legacyPaymentCode(id));

    const [made] = await store.db
      .insertInto("transactions")
      .values(depositRow({ firmId, accountId, amount: 500, reference: "NEW-1" }, T))
      .returning("id")
      .execute();
    const newId = Number(made?.id);
    expect(newId).toBeGreaterThan(last);
    expect(codes.of(newId)).not.toBe(legacyPaymentCode(newId));
  });
});
