import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sealContext } from "../../src/crypto/seal-context.js";
import { createSecretBox } from "../../src/crypto/secret-box.js";
import { createFirmDirectory } from "../../src/intake/firm-directory.js";
import { newApiKey } from "../../src/management/service.js";
import { createRepositories, type Repositories } from "../../src/store/index.js";
import { STORES, type StoreKind } from "../support/harness.js";
import { insertFirm } from "../support/rows.js";
import { freshStore } from "../support/store.js";

/**
 * The directory of API keys over a real store: what it asks the store for. A header longer than any
 * key of ours is answered without a read and kept nowhere (a flood of 16 KB made-up keys grew the
 * server by 190 MB through the cache of unknown keys).
 */
describe.each(STORES)("firm directory (%s)", (kind: StoreKind) => {
  let opened: Awaited<ReturnType<typeof freshStore>>;
  let repos: Repositories;
  const box = createSecretBox(randomBytes(32));
  let apiKey: string;

  beforeAll(async () => {
    opened = await freshStore(kind);
    repos = createRepositories(opened.store);
    apiKey = newApiKey();
    const id = await insertFirm(opened.store, Date.now(), { name: "Directory Firm", api_key: apiKey });
    await opened.store.db
      .updateTable("firms")
      .set({ secret_sealed: box.seal("sk_test", sealContext.firmSecret(id)) })
      .where("id", "=", id)
      .execute();
  });
  /** A directory over the real repository, counting the lookups that reach the store. */
  function counted() {
    let reads = 0;
    const firms = {
      ...repos.firms,
      findByApiKey: (k: string) => {
        reads++;
        return repos.firms.findByApiKey(k);
      },
    };
    return { directory: createFirmDirectory(firms, box), reads: () => reads };
  }
  afterAll(() => opened?.close());

  it("finds a key once per lifetime; an unknown key of a key's size is read once and remembered", async () => {
    const { directory, reads } = counted();
    expect((await directory.findByApiKey(apiKey))?.secret).toBe("sk_test");
    expect((await directory.findByApiKey(apiKey))?.name).toBe("Directory Firm");
    expect(await directory.findByApiKey("pk_unknown")).toBeUndefined();
    expect(await directory.findByApiKey("pk_unknown")).toBeUndefined();
    expect(reads()).toBe(2);
  });

  it("a header longer than any key is no firm, without a read", async () => {
    const { directory, reads } = counted();
    for (const size of [65, 1_000, 16_000])
      expect(await directory.findByApiKey("k".repeat(size))).toBeUndefined();
    expect(reads()).toBe(0);
    expect(await directory.findByApiKey("k".repeat(64))).toBeUndefined();
    expect(reads()).toBe(1);
  });
});
