import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore, type Store } from "../../src/store/open.js";
import { STORES, type StoreKind, storeEnv } from "../support/harness.js";

/** Migrations that rewrite rows, run against rows written before them, on a real store of each kind. */
describe.each(STORES)("data migrations (%s)", (kind: StoreKind) => {
  let cleanup: () => Promise<void>;
  let store: Store;

  beforeAll(async () => {
    const env = await storeEnv(kind);
    cleanup = env.cleanup;
    store = await openStore({
      databaseUrl: env.env.DATABASE_URL,
      dataDir: env.env.PAYINTAKE_DATA_DIR ?? "",
      pgPoolSize: 2,
    });
    await store.migrate();
  });
  afterAll(async () => {
    await store?.close();
    await cleanup?.();
  });

  it("gives withdrawals written without a method the method fast, and leaves deposits' own", async () => {
    const now = Date.now();
    const firm = await store.db
      .insertInto("firms")
      .values({
        provider_id: null,
        name: "F",
        api_key: `k-${kind}-${now}`,
        secret_sealed: "x",
        webhook_url: null,
        legacy_http: 0,
        callback_middle_name: 0,
        deposit_min: null,
        deposit_max: null,
        deposits_open: 1,
        withdrawals_open: 1,
        active: 1,
        rate_limit_per_second: 100,
        created_at: now,
        updated_at: now,
      })
      .returning("id")
      .executeTakeFirstOrThrow();
    const account = await store.db
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
        daily_cap: null,
        created_at: now,
        updated_at: now,
      })
      .returning("id")
      .executeTakeFirstOrThrow();
    const row = (
      reference: string,
      type: "deposit" | "withdrawal",
      method: string | null,
      userId: string,
    ) => ({
      firm_id: Number(firm.id),
      reference,
      type,
      status: "pending" as const,
      amount: 100,
      method,
      first_name: "Ali",
      last_name: "Veli",
      middle_name: null,
      username: "ali",
      user_id: userId,
      national_id_masked: null,
      national_id_sealed: null,
      bank_code: "B",
      iban: type === "withdrawal" ? "x" : null,
      iban_valid: type === "withdrawal" ? 0 : null,
      account_id: type === "deposit" ? Number(account.id) : null,
      assigned_bank_name: type === "deposit" ? "B" : null,
      assigned_holder_name: type === "deposit" ? "H" : null,
      assigned_iban: type === "deposit" ? "TR000000000000000000000001" : null,
      callback_url: "https://hooks.example/cb",
      created_at: now,
      updated_at: now,
      routing_log: null,
    });
    // Rows as the service wrote them before withdrawals carried a method.
    await store.db
      .insertInto("transactions")
      .values([row("W-OLD", "withdrawal", null, "u1"), row("D-EFT", "deposit", "eft", "u2")])
      .execute();
    await store.db
      .deleteFrom("schema_migrations")
      .where("version", "=", "20261124T1400_withdrawal_method")
      .execute();

    expect(await store.migrate()).toEqual(["20261124T1400_withdrawal_method"]);
    const methods = await store.db
      .selectFrom("transactions")
      .select(["reference", "method"])
      .where("firm_id", "=", Number(firm.id))
      .orderBy("reference")
      .execute();
    expect(methods).toEqual([
      { reference: "D-EFT", method: "eft" },
      { reference: "W-OLD", method: "fast" },
    ]);
  });
});
