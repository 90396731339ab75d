import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CapHoldRepository, createCapHoldRepository } from "../../src/store/cap-holds.js";
import { openStore, type Store } from "../../src/store/open.js";
import { STORES, type StoreKind, storeEnv } from "../support/harness.js";

/** Daily cap holds on a real store of each kind: judged and written in one transaction. */
describe.each(STORES)("daily cap holds (%s)", (kind: StoreKind) => {
  let cleanup: () => Promise<void>;
  let store: Store;
  let holds: CapHoldRepository;
  const others: Store[] = [];
  const DAY = 1_000_000;
  const NOW = DAY + 5_000;

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
    holds = createCapHoldRepository(store.db, store.dialect);
    // On PostgreSQL, two more stores play two more instances on the same database.
    if (kind === "postgres") for (let i = 0; i < 2; i++) others.push(await open());
  });
  afterAll(async () => {
    for (const s of others) await s.close();
    await store?.close();
    await cleanup?.();
  });

  async function account(dailyCap: number | null) {
    const row = await store.db
      .insertInto("payment_accounts")
      .values({
        bank_name: "B",
        holder_name: "H",
        iban: "TR000000000000000000000001",
        min_amount: null,
        max_amount: null,
        active: 1,
        channel_id: null,
        bank_code: null,
        daily_cap: dailyCap,
        created_at: NOW,
        updated_at: NOW,
      })
      .returning("id")
      .executeTakeFirstOrThrow();
    return Number(row.id);
  }
  const hold = (accountId: number, amountMinor: number, now = NOW, repo = holds) =>
    repo.hold({ accountId, amountMinor, since: DAY, now, expiresAt: now + 60_000 });

  it("holds up to the cap, then refuses; a released hold frees its amount; an expired one stops counting", async () => {
    const id = await account(30_000);
    const first = await hold(id, 15_000);
    expect(first.outcome).toBe("held");
    expect((await hold(id, 15_000)).outcome).toBe("held");
    expect((await hold(id, 1)).outcome).toBe("full");
    expect((await holds.usage([id], DAY, NOW)).get(id)).toBe(30_000);
    if (first.outcome !== "held") throw new Error("unreachable");
    await holds.release(first.id);
    expect((await holds.usage([id], DAY, NOW)).get(id)).toBe(15_000);
    expect((await hold(id, 15_000)).outcome).toBe("held");
    // A minute later nobody released them (an instance that stopped): they no longer count.
    const later = NOW + 60_001;
    expect((await hold(id, 30_000, later)).outcome).toBe("held");
    await holds.purgeExpired(later);
    expect((await holds.usage([id], DAY, later)).get(id)).toBe(30_000);
  });

  it("an account without a cap holds nothing", async () => {
    const id = await account(null);
    expect((await hold(id, 15_000)).outcome).toBe("uncapped");
    expect((await holds.usage([id], DAY, NOW)).get(id)).toBeUndefined();
  });

  it.runIf(kind === "postgres")(
    "holds asked by three instances at the same moment never pass the cap together",
    async () => {
      const id = await account(100_000);
      const repos = [holds, ...others.map((s) => createCapHoldRepository(s.db, s.dialect))];
      const outcomes = await Promise.all(
        Array.from({ length: 36 }, (_, i) => hold(id, 10_000, NOW, repos[i % repos.length])),
      );
      // Without the account row locked, each transaction sums before the others insert: most pass.
      expect(outcomes.filter((o) => o.outcome === "held")).toHaveLength(10);
      expect((await holds.usage([id], DAY, NOW)).get(id)).toBe(100_000);
    },
  );
});
