import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PAYMENT_PAGE_KEPT_MS, type Purge, paymentPagePurges, runPurges } from "../../src/jobs/purges.js";
import type { Store } from "../../src/store/engine/open.js";
import { createRepositories, type Repositories } from "../../src/store/index.js";
import { STORES, type StoreKind } from "../support/harness.js";
import { depositRow, insertAccount, insertFirm } from "../support/rows.js";
import { freshStore } from "../support/store.js";

/** What the server's minute job forgets, on a real store of each kind (src/main/server.ts). */
describe.each(STORES)("ended sessions are cleaned up (%s)", (kind: StoreKind) => {
  let close: () => Promise<void>;
  let store: Store;
  let repos: Repositories;
  const T = 1_800_000_000_000;

  beforeAll(async () => {
    ({ store, close } = await freshStore(kind));
    repos = createRepositories(store);
  });
  afterAll(async () => {
    await close?.();
  });

  it("a payment page's payer details go once it ended; the row stays, and open pages keep theirs", async () => {
    const firm = await insertFirm(store, T);
    const session = (reference: string, expiresAt: number) =>
      repos.sessions.create({
        token_hash: `h-${reference}`,
        firm_id: firm,
        reference,
        request_sealed: "v1:sealed-payer-details",
        callback_url: "https://merchant.example/cb",
        return_url: null,
        expires_at: expiresAt,
        created_at: T,
        updated_at: T,
      });
    const ended = await session("S-ENDED", T - 1);
    const open = await session("S-OPEN", T + 60_000);
    expect(await repos.sessions.scrubEnded(T, 100)).toBe(1);
    expect((await repos.sessions.byTokenHash(ended.token_hash))?.request_sealed).toBe("");
    expect((await repos.sessions.byTokenHash(ended.token_hash))?.reference).toBe("S-ENDED");
    expect((await repos.sessions.byTokenHash(open.token_hash))?.request_sealed).toBe(
      "v1:sealed-payer-details",
    );
    expect(await repos.sessions.scrubEnded(T, 100)).toBe(0);
  });

  it("the minute's purges go in batches: all due rows within a few minutes' runs, none that is not due", async () => {
    const firm = await insertFirm(store, T);
    const DAY = 86_400_000;
    // 12,000 expired nonces and 4 that are not; payment pages 91 and 89 days past their end.
    await store.db.transaction().execute(async (trx) => {
      for (let i = 0; i < 12_000; i += 1_000)
        await trx
          .insertInto("nonces")
          .values(
            Array.from({ length: 1_000 }, (_, j) => ({
              firm_id: firm,
              nonce: `old-${i + j}`,
              expires_at: T - 1,
            })),
          )
          .execute();
      await trx
        .insertInto("nonces")
        .values(
          Array.from({ length: 4 }, (_, j) => ({ firm_id: firm, nonce: `live-${j}`, expires_at: T + 1 })),
        )
        .execute();
    });
    for (const [reference, ended] of [
      ["P-GONE", T - 91 * DAY],
      ["P-KEPT", T - 89 * DAY],
      ["P-WAITS", T - 91 * DAY],
    ] as const)
      await repos.sessions.create({
        token_hash: `h-${reference}`,
        firm_id: firm,
        reference,
        request_sealed: "v1:sealed",
        callback_url: "https://merchant.example/cb",
        return_url: null,
        expires_at: ended,
        created_at: ended,
        updated_at: ended,
      });
    // The oldest page's deposit still waits for its money (auto-cancel off): its page stays.
    const accountId = await insertAccount(store, T);
    const pending = await store.db
      .insertInto("transactions")
      .values(depositRow({ firmId: firm, accountId, amount: 5_000, reference: "P-WAITS" }, T - 91 * DAY))
      .returning("id")
      .executeTakeFirstOrThrow();
    const waits = await repos.sessions.byTokenHash("h-P-WAITS");
    await repos.sessions.markAssigned(waits?.id ?? 0, Number(pending.id), T - 91 * DAY);
    const batches: number[] = [];
    const purges: Purge[] = [
      {
        name: "nonce purge",
        run: async (limit) => {
          const n = await repos.nonces.purgeExpired(T, limit);
          batches.push(n);
          return n;
        },
      },
      ...paymentPagePurges(repos.sessions, () => T),
    ];
    const logger = pino({ level: "silent" });
    await runPurges(purges, logger);
    expect(batches).toEqual([5_000, 5_000, 2_000]);
    const nonces = await store.db.selectFrom("nonces").select("nonce").where("firm_id", "=", firm).execute();
    expect(nonces.map((r) => r.nonce).sort()).toEqual(["live-0", "live-1", "live-2", "live-3"]);
    expect(await repos.sessions.byTokenHash("h-P-GONE")).toBeUndefined();
    const kept = await repos.sessions.byTokenHash("h-P-KEPT");
    expect([kept?.reference, kept?.request_sealed]).toEqual(["P-KEPT", ""]);
    expect((await repos.sessions.byTokenHash("h-P-WAITS"))?.reference).toBe("P-WAITS");
    expect(PAYMENT_PAGE_KEPT_MS).toBe(90 * DAY);
  });

  it("expired and idle console sessions are deleted; live ones stay", async () => {
    const op = await store.db
      .insertInto("operators")
      .values({
        email: `c-${kind}@ops.example`,
        role: "viewer",
        password_hash: "x",
        failed_logins: 0,
        locked_until: 0,
        active: 1,
        created_at: T,
        updated_at: T,
      })
      .returning("id")
      .executeTakeFirstOrThrow();
    const IDLE_MS = 30 * 60_000;
    for (const [hash, expires, activeAt] of [
      ["gone", T - 1, T - 2],
      ["idle", T + 1, T - IDLE_MS],
      ["kept", T + 1, T - IDLE_MS + 1],
    ] as const)
      await store.db
        .insertInto("operator_sessions")
        .values({
          token_hash: hash,
          operator_id: Number(op.id),
          csrf_token: "c",
          expires_at: expires,
          created_at: T - IDLE_MS,
          last_active_at: activeAt,
        })
        .execute();
    await repos.operators.purgeExpiredSessions(T, T - IDLE_MS);
    const left = await store.db.selectFrom("operator_sessions").select("token_hash").execute();
    expect(left.map((r) => r.token_hash)).toEqual(["kept"]);
  });
});
