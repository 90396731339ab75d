import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRepositories, type Repositories } from "../../src/store/index.js";
import type { Store } from "../../src/store/open.js";
import { STORES, type StoreKind } from "../support/harness.js";
import { insertFirm } from "../support/rows.js";
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
    expect(await repos.sessions.scrubEnded(T)).toBe(1);
    expect((await repos.sessions.byTokenHash(ended.token_hash))?.request_sealed).toBe("");
    expect((await repos.sessions.byTokenHash(ended.token_hash))?.reference).toBe("S-ENDED");
    expect((await repos.sessions.byTokenHash(open.token_hash))?.request_sealed).toBe(
      "v1:sealed-payer-details",
    );
    expect(await repos.sessions.scrubEnded(T)).toBe(0);
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
