import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type CallbackRepository,
  createCallbackRepository,
  INTERRUPTED,
} from "../../src/store/callbacks/callbacks.js";
import type { Store } from "../../src/store/engine/open.js";
import { STORES, type StoreKind } from "../support/harness.js";
import { depositRow, insertAccount, insertFirm } from "../support/rows.js";
import { freshStore } from "../support/store.js";

/**
 * An attempt a worker stopped in the middle of keeps its number (issue 50, point 3): the next
 * claim sends the next number and the cut one is on record as interrupted, once; a row given back
 * unsent takes its claim back.
 */
describe.each(STORES)("callback claims number the attempts (%s)", (kind: StoreKind) => {
  let close: () => Promise<void>;
  let store: Store;
  let callbacks: CallbackRepository;
  let firmId: number;
  let accountId: number;
  const NOW = 1_800_000_000_000;
  const LEASE = 10_000;

  beforeAll(async () => {
    ({ store, close } = await freshStore(kind));
    firmId = await insertFirm(store, NOW);
    accountId = await insertAccount(store, NOW);
    callbacks = createCallbackRepository(store.db, store.dialect);
  });
  afterAll(async () => {
    await close?.();
  });

  /** One pending callback, due at NOW, alone in the due set (earlier ones are settled). */
  async function dueCallback(reference: string): Promise<number> {
    await store.db.updateTable("callbacks").set({ status: "delivered", delivered_at: NOW }).execute();
    const tx = await store.db
      .insertInto("transactions")
      .values({
        ...depositRow({ firmId, accountId, amount: 10_000, reference }, NOW),
        status: "approved" as const,
      })
      .returning("id")
      .executeTakeFirstOrThrow();
    const row = await store.db
      .insertInto("callbacks")
      .values({
        transaction_id: Number(tx.id),
        firm_id: firmId,
        event: "transaction.approved",
        url: "https://hooks.example/cb",
        origin: "https://hooks.example:443",
        payload: "{}",
        hash_input: "x",
        status: "pending",
        step: 0,
        attempts: 0,
        next_attempt_at: NOW,
        lease_until: 0,
        lease_owner: null,
        last_attempt_at: null,
        last_result: null,
        delivered_at: null,
        failed_at: null,
        created_at: NOW,
        updated_at: NOW,
      })
      .returning("id")
      .executeTakeFirstOrThrow();
    return Number(row.id);
  }

  const claim = (owner: string, now: number) =>
    callbacks.claimDue({ now, leaseUntil: now + LEASE, owner, limit: 10, perOrigin: 10, excludeOrigins: [] });

  const record = (id: number, owner: string, attempt: number, recordedBefore: number, now: number) =>
    callbacks.recordAttempt({
      callbackId: id,
      owner,
      attempt,
      recordedBefore,
      startedAt: now,
      durationMs: 5,
      httpStatus: 200,
      error: null,
      excerpt: null,
      outcome: "delivered",
      nextAttemptAt: null,
      summary: "HTTP 200",
      now,
      scheduleVersion: 0,
    });

  it("after a worker stops mid-attempt, the next claim sends the next number and records the cut one as interrupted", async () => {
    const id = await dueCallback("claims-cut");
    const [first] = await claim("worker-a", NOW);
    expect(first).toMatchObject({ id, attempts: 0, claimed_attempt: 1 });
    // worker-a dies: its lease runs out, and worker-b takes the row.
    const [second] = await claim("worker-b", NOW + LEASE + 1);
    expect(second).toMatchObject({ id, attempts: 0, claimed_attempt: 2 });
    await record(id, "worker-b", 2, 0, NOW + LEASE + 2);
    const attempts = await callbacks.attempts(id);
    expect(attempts.map((a) => [a.attempt, a.outcome, a.error, a.http_status])).toEqual([
      [1, "retry", INTERRUPTED, null],
      [2, "delivered", null, 200],
    ]);
    expect(await callbacks.get(id)).toMatchObject({
      status: "delivered",
      attempts: 2,
      claimed_attempt: 2,
      step: 1,
    });
  });

  it("an attempt whose worker lost its lease and recorded it late is not recorded twice", async () => {
    const id = await dueCallback("claims-late");
    await claim("worker-a", NOW);
    const [taken] = await claim("worker-b", NOW + LEASE + 1);
    expect(taken?.claimed_attempt).toBe(2);
    // worker-a was only slow: it records attempt 1 (its lease is gone: the row is not moved on).
    await record(id, "worker-a", 1, 0, NOW + LEASE + 2);
    expect(await callbacks.get(id)).toMatchObject({
      status: "pending",
      attempts: 0,
      lease_owner: "worker-b",
    });
    await record(id, "worker-b", 2, 0, NOW + LEASE + 3);
    const attempts = await callbacks.attempts(id);
    expect(attempts.map((a) => [a.attempt, a.outcome, a.error])).toEqual([
      [1, "delivered", null],
      [2, "delivered", null],
    ]);
    expect(await callbacks.get(id)).toMatchObject({ status: "delivered", attempts: 2 });
  });

  it("a row given back unsent takes its claim back: the next claim is for the same attempt", async () => {
    const id = await dueCallback("claims-released");
    const [claimed] = await claim("worker-a", NOW);
    expect(claimed?.claimed_attempt).toBe(1);
    await callbacks.release(id, "worker-a");
    const [again] = await claim("worker-b", NOW + 1);
    expect(again).toMatchObject({ id, attempts: 0, claimed_attempt: 1 });
    await record(id, "worker-b", 1, 0, NOW + 2);
    expect((await callbacks.attempts(id)).map((a) => a.attempt)).toEqual([1]);
  });
});
