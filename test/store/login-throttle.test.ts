import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLoginThrottle, type LoginThrottle } from "../../src/operators/login-throttle.js";
import type { Store } from "../../src/store/engine/open.js";
import { createLoginWindowRepository } from "../../src/store/operators/login-windows.js";
import { STORES, type StoreKind } from "../support/harness.js";
import { freshStore } from "../support/store.js";

/**
 * The console's per-address sign-in count on a real store of each kind. Two throttles over one
 * database are two instances: on PostgreSQL each has its own connection pool.
 */
describe.each(STORES)("login throttle in the store (%s)", (kind: StoreKind) => {
  let close: () => Promise<void>;
  let store: Store;
  let other: Store;
  const errors: unknown[] = [];

  beforeAll(async () => {
    const fresh = await freshStore(kind);
    ({ store, close } = fresh);
    // SQLite allows one process per data directory: there the second "instance" shares the store.
    other = kind === "postgres" ? await fresh.open() : store;
  });
  afterAll(async () => {
    await close?.();
  });

  const throttle = (limit: number, windowMs: number, on: Store = store): LoginThrottle =>
    createLoginThrottle({
      limit,
      windowMs,
      store: createLoginWindowRepository(on.db),
      onError: (err) => errors.push(err),
    });
  const T = 1_800_000_000_000;

  it("counts an attempt when it starts, so a concurrent burst cannot pass the check together", async () => {
    const t = throttle(20, 900_000);
    const started = await Promise.all(Array.from({ length: 30 }, () => t.attempt("10.0.0.1", T)));
    expect(started.filter((a) => a.ok)).toHaveLength(20);
    expect(started.filter((a) => !a.ok)).toEqual(Array(10).fill({ ok: false, retryAfterMs: 900_000 }));
    expect((await t.attempt("10.0.0.2", T)).ok).toBe(true);
  });

  it("a success takes its attempt back; the window ends on time", async () => {
    const t = throttle(2, 1_000);
    for (let i = 0; i < 5; i++) {
      const a = await t.attempt("10.0.1.1", T);
      if (!a.ok) throw new Error("refused");
      await a.succeeded();
    }
    expect((await t.attempt("10.0.1.1", T)).ok).toBe(true);
    expect((await t.attempt("10.0.1.1", T + 10)).ok).toBe(true);
    expect(await t.attempt("10.0.1.1", T + 20)).toEqual({ ok: false, retryAfterMs: 980 });
    expect((await t.attempt("10.0.1.1", T + 1_000)).ok).toBe(true);
  });

  it("a success in a window that has since started again takes nothing from the new one", async () => {
    const t = throttle(1, 1_000);
    const old = await t.attempt("10.0.2.1", T);
    if (!old.ok) throw new Error("refused");
    expect((await t.attempt("10.0.2.1", T + 1_000)).ok).toBe(true);
    await old.succeeded();
    expect((await t.attempt("10.0.2.1", T + 1_001)).ok).toBe(false);
  });

  it("two instances share one count per address: a burst spread over both stops at the limit", async () => {
    const a = throttle(20, 900_000);
    const b = throttle(20, 900_000, other);
    const started = await Promise.all(
      Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? a : b).attempt("10.0.3.1", T)),
    );
    // Before (a count per instance): 40, twenty on each.
    expect(started.filter((s) => s.ok)).toHaveLength(20);
    expect((await a.attempt("10.0.3.1", T + 1)).ok).toBe(false);
    expect((await b.attempt("10.0.3.1", T + 1)).ok).toBe(false);
  });

  it("counts an IPv6 /64 as one address, and keeps no address in the clear", async () => {
    const t = throttle(1, 1_000);
    expect((await t.attempt("2001:db8:1:2::a", T)).ok).toBe(true);
    expect((await t.attempt("2001:db8:1:2::b", T)).ok).toBe(false);
    const keys = (await store.db.selectFrom("login_windows").select("key").execute()).map((r) => r.key);
    expect(keys.length).toBeGreaterThan(0);
    for (const k of keys) expect(k).toMatch(/^[A-Za-z0-9_-]{22}$/);
  });

  it("forgets finished windows", async () => {
    const t = throttle(1, 1_000);
    await t.attempt("10.0.4.1", T + 10_000_000);
    const left = await store.db.selectFrom("login_windows").select("since").execute();
    expect(left.length).toBeGreaterThan(0);
    // The purge runs beside the attempt, not awaited by it.
    await expect
      .poll(async () => {
        const after = await store.db.selectFrom("login_windows").select("since").execute();
        return after.every((r) => Number(r.since) >= T + 10_000_000 - 1_000);
      })
      .toBe(true);
    expect(errors).toEqual([]);
  });
});
