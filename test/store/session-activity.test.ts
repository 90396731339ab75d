import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Store } from "../../src/store/engine/open.js";
import { createRepositories, type Repositories } from "../../src/store/index.js";
import { STORES, type StoreKind } from "../support/harness.js";
import { freshStore } from "../support/store.js";

const MINUTE = 60_000;
const IDLE_MS = 30 * MINUTE;

/** The console sessions' activity record (operators/idle.ts) on a real store of each kind. */
describe.each(STORES)("console session activity (%s)", (kind: StoreKind) => {
  let close: () => Promise<void>;
  let store: Store;
  let repos: Repositories;
  let operatorId: number;

  beforeAll(async () => {
    ({ store, close } = await freshStore(kind));
    repos = createRepositories(store);
    const op = await store.db
      .insertInto("operators")
      .values({
        email: `idle-${kind}@ops.example`,
        role: "operator",
        password_hash: "x",
        failed_logins: 0,
        locked_until: 0,
        active: 1,
        created_at: 0,
        updated_at: 0,
      })
      .returning("id")
      .executeTakeFirstOrThrow();
    operatorId = Number(op.id);
  });
  afterAll(async () => {
    await close?.();
  });

  const open = (hash: string, at: number) =>
    store.db
      .insertInto("operator_sessions")
      .values({
        token_hash: hash,
        operator_id: operatorId,
        csrf_token: "c",
        expires_at: at + 12 * 60 * MINUTE,
        created_at: at,
        last_active_at: at,
      })
      .execute();
  const lastActiveAt = async (hash: string) =>
    (
      await store.db
        .selectFrom("operator_sessions")
        .select("last_active_at")
        .where("token_hash", "=", hash)
        .executeTakeFirst()
    )?.last_active_at;

  it("sessions open at the upgrade count as active at its time: nobody is signed out by it", async () => {
    const T = Date.now();
    // The store as it was before the migration, with a session open in it.
    await sql`ALTER TABLE operator_sessions DROP COLUMN last_active_at`.execute(store.db);
    await sql`DELETE FROM schema_migrations WHERE version = '20261125T1200_session_activity'`.execute(
      store.db,
    );
    await sql`INSERT INTO operator_sessions (token_hash, operator_id, csrf_token, expires_at, created_at)
      VALUES ('from-before', ${operatorId}, 'c', ${T + MINUTE}, ${T - 11 * 60 * MINUTE})`.execute(store.db);
    expect(await store.migrate()).toEqual(["20261125T1200_session_activity"]);

    const after = Date.now();
    const at = await lastActiveAt("from-before");
    expect(at).toBeGreaterThanOrEqual(T - 1_000);
    expect(at).toBeLessThanOrEqual(after + 1_000);
    expect(await repos.operators.session("from-before", after, after - IDLE_MS)).toBeDefined();
    // Its 12 hours from sign-in are unchanged.
    expect(await repos.operators.session("from-before", T + MINUTE, T + MINUTE - IDLE_MS)).toBeUndefined();
  });

  it("a session an instance from before opened during a rolling upgrade (no record) counts from its sign-in", async () => {
    const T = 1_800_000_000_000;
    // What an old instance writes: no last_active_at, so the column's default, 0.
    await sql`INSERT INTO operator_sessions (token_hash, operator_id, csrf_token, expires_at, created_at)
      VALUES ('old-instance', ${operatorId}, 'c', ${T + 12 * 60 * MINUTE}, ${T})`.execute(store.db);
    expect(await lastActiveAt("old-instance")).toBe(0);
    const live = await repos.operators.session("old-instance", T + MINUTE, T + MINUTE - IDLE_MS);
    expect(live?.lastActiveAt).toBe(T);
    // Kept by the purge while live; its activity is written as any other's.
    await repos.operators.purgeExpiredSessions(T + MINUTE, T + MINUTE - IDLE_MS);
    expect(await lastActiveAt("old-instance")).toBe(0);
    expect(
      await repos.operators.recordActivity(
        "old-instance",
        T + 2 * MINUTE,
        T + MINUTE,
        T + 2 * MINUTE - IDLE_MS,
      ),
    ).toBe(true);
    expect(await lastActiveAt("old-instance")).toBe(T + 2 * MINUTE);
    // Idle from its sign-in for the timeout: refused like any other.
    await sql`UPDATE operator_sessions SET last_active_at = 0 WHERE token_hash = 'old-instance'`.execute(
      store.db,
    );
    expect(await repos.operators.session("old-instance", T + IDLE_MS, T)).toBeUndefined();
  });

  it("a session is live until its operator has been idle for the timeout", async () => {
    const T = 1_800_000_000_000;
    await open("idle", T);
    expect(await repos.operators.session("idle", T + IDLE_MS - 1, T - 1)).toBeDefined();
    expect(await repos.operators.session("idle", T + IDLE_MS, T)).toBeUndefined();
  });

  it("activity is written once a minute at most, once for requests arriving together, and never revives an idle session", async () => {
    const T = 1_800_000_000_000;
    await open("busy", T);
    const record = (at: number) => repos.operators.recordActivity("busy", at, at - MINUTE, at - IDLE_MS);
    expect(await record(T + 30_000)).toBe(false);
    expect(await lastActiveAt("busy")).toBe(T);

    const together = await Promise.all(Array.from({ length: 8 }, (_, i) => record(T + MINUTE + i)));
    expect(together.filter(Boolean)).toHaveLength(1);
    const written = (await lastActiveAt("busy")) as number;
    expect(written).toBeGreaterThanOrEqual(T + MINUTE);

    // Idle for the timeout: refused, and a late write cannot bring it back.
    const late = written + IDLE_MS;
    expect(await repos.operators.session("busy", late, late - IDLE_MS)).toBeUndefined();
    expect(await record(late)).toBe(false);
    expect(await lastActiveAt("busy")).toBe(written);
  });
});
