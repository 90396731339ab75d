import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkMasterKey, masterKeyCheck } from "../../src/crypto/key-check.js";
import { createSecretBox } from "../../src/crypto/secret-box.js";
import { openStore, type Store } from "../../src/store/engine/open.js";
import { createStoreKeyRepository } from "../../src/store/store-keys.js";
import { STORES, type StoreKind, storeEnv } from "../support/harness.js";

/**
 * The master key's check in a real store of each kind, below the server: instances recording
 * their first check at the same moment (on PostgreSQL each with its own connection pool) all end
 * with the one check that won, and none fails.
 */
describe.each(STORES)("master key check in the store (%s)", (kind: StoreKind) => {
  let cleanup: () => Promise<void>;
  let store: Store;
  let other: Store;

  beforeAll(async () => {
    const env = await storeEnv(kind);
    cleanup = env.cleanup;
    const open = () =>
      openStore({
        databaseUrl: env.env.DATABASE_URL,
        dataDir: env.env.PAYINTAKE_DATA_DIR ?? "",
        pgPoolSize: 4,
      });
    store = await open();
    await store.migrate();
    // SQLite allows one process per data directory: there the second "instance" shares the store.
    other = kind === "postgres" ? await open() : store;
  });
  afterAll(async () => {
    if (other !== store) await other?.close();
    await store?.close();
    await cleanup?.();
  });

  it("twelve first starts at once, half with one key and half with another: one key wins, the rest refuse", async () => {
    const keys = [randomBytes(32), randomBytes(32)];
    const starts = Array.from({ length: 12 }, (_, i) => {
      const key = keys[i % 2] as Buffer;
      const repo = createStoreKeyRepository((i % 4 < 2 ? store : other).db);
      return checkMasterKey(key, createSecretBox(key), {
        // Every one of them found no check: they all go on to record theirs together.
        recorded: async () => undefined,
        record: (check) => repo.recordMasterCheck(check, 1),
        oldestSealedSecret: () => repo.oldestSealedSecret(),
        beforeRecording() {},
      });
    });
    const outcomes = await Promise.all(starts);
    const won = await createStoreKeyRepository(store.db).masterCheck();
    const winner = keys.findIndex((k) => masterKeyCheck(k) === won);
    expect(winner).toBeGreaterThanOrEqual(0);
    expect(outcomes).toEqual(outcomes.map((_, i) => (i % 2 === winner ? "recorded" : "other_key")));
    expect(await store.db.selectFrom("store_keys").selectAll().execute()).toHaveLength(1);

    // A later start of each: the winner's key matches, the other does not, and nothing is written.
    for (const [i, key] of keys.entries()) {
      const repo = createStoreKeyRepository(other.db);
      const later = await checkMasterKey(key, createSecretBox(key), {
        recorded: () => repo.masterCheck(),
        record: () => Promise.reject(new Error("must not record again")),
        oldestSealedSecret: () => repo.oldestSealedSecret(),
        beforeRecording() {},
      });
      expect(later).toBe(i === winner ? "matched" : "other_key");
    }
  });

  it("the check value tells keys apart and holds nothing of the key", () => {
    const key = randomBytes(32);
    const check = masterKeyCheck(key);
    expect(check).toMatch(/^v1:[0-9a-f]{64}$/);
    expect(masterKeyCheck(Buffer.from(key))).toBe(check);
    expect(masterKeyCheck(randomBytes(32))).not.toBe(check);
    expect(check).not.toContain(key.toString("hex"));
  });
});
