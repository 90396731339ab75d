import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Store } from "../../src/store/engine/open.js";
import {
  CHANNEL_MISMATCH,
  CHANNEL_UNKNOWN,
  createPayoutWatchRepository,
  OVERDUE,
  type PayoutWatchRepository,
} from "../../src/store/payouts/payout-watch.js";
import { STORES, type StoreKind } from "../support/harness.js";
import { depositRow, insertAccount, insertFirm, insertSentPayout } from "../support/rows.js";
import { freshStore } from "../support/store.js";

/**
 * The payout watch's claims and flags as the store keeps them, raced by several watchers (on
 * PostgreSQL, two instances with a pool each): one claim of an attempt wins per value read, and a
 * flag is raised and audited once.
 */
describe.each(STORES)("payout watch in the store (%s)", (kind: StoreKind) => {
  let close: () => Promise<void>;
  let store: Store;
  let watchers: PayoutWatchRepository[];
  let firmId: number;
  let accountId: number;
  const NOW = 1_800_000_000_000;
  let seq = 0;

  beforeAll(async () => {
    const fresh = await freshStore(kind);
    ({ store, close } = fresh);
    const other = kind === "postgres" ? await fresh.open() : store;
    watchers = [createPayoutWatchRepository(store.db), createPayoutWatchRepository(other.db)];
    firmId = await insertFirm(store, NOW);
    accountId = await insertAccount(store, NOW);
  });
  afterAll(async () => {
    await close?.();
  });

  /** A pending withdrawal with one attempt, sent at NOW. */
  async function sentAttempt(): Promise<number> {
    const reference = `W-${++seq}`;
    const tx = await store.db
      .insertInto("transactions")
      .values({
        ...depositRow({ firmId, accountId, amount: 10_000, reference }, NOW),
        type: "withdrawal",
        iban: "TR330006100519786457841326",
      })
      .returning("id")
      .executeTakeFirstOrThrow();
    const paymentId = `PIWATCH${String(seq).padStart(8, "0")}`;
    return insertSentPayout(store, { transactionId: Number(tx.id), firmId, accountId, paymentId }, NOW);
  }

  const flagOf = async (id: number) =>
    (
      await store.db
        .selectFrom("payout_attempts")
        .select("flag")
        .where("id", "=", id)
        .executeTakeFirstOrThrow()
    ).flag;
  const audits = async (id: number, action: string) =>
    (
      await store.db.selectFrom("audit_log").select("after_json").where("action", "=", action).execute()
    ).filter((a) => JSON.parse(a.after_json ?? "{}").attempt === id).length;

  it("of watchers claiming one attempt at once for the value they read, one wins", async () => {
    const id = await sentAttempt();
    const claims = await Promise.all(
      Array.from({ length: 8 }, (_, i) => watchers[i % 2]?.claim(id, NOW, NOW + 1 + i)),
    );
    expect(claims.filter(Boolean)).toHaveLength(1);
    // The claim moved the value: a claim of the old one loses, of the new one wins.
    const row = await store.db
      .selectFrom("payout_attempts")
      .select("updated_at")
      .where("id", "=", id)
      .executeTakeFirstOrThrow();
    expect(await watchers[0]?.claim(id, NOW, NOW + 100)).toBe(false);
    expect(await watchers[1]?.claim(id, Number(row.updated_at), NOW + 100)).toBe(true);
  });

  it("overdue is raised once, audited once, however many watchers see it", async () => {
    const id = await sentAttempt();
    const raised = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        watchers[i % 2]?.flagIfNone({ attemptId: id, flag: OVERDUE, actor: "t", now: NOW + 1 }),
      ),
    );
    expect(raised.filter(Boolean)).toHaveLength(1);
    expect(await flagOf(id)).toBe(OVERDUE);
    expect(await audits(id, "payout.overdue")).toBe(1);
  });

  it("a channel's flag is raised once; a mismatch stays; an unknown is lifted by a clear answer", async () => {
    const id = await sentAttempt();
    const f = (flag: string) => ({ attemptId: id, flag, actor: "t", now: NOW + 1 });
    const raised = await Promise.all(
      Array.from({ length: 6 }, (_, i) => watchers[i % 2]?.flagChannel(f(CHANNEL_UNKNOWN))),
    );
    expect(raised.filter(Boolean)).toHaveLength(1);
    expect(await audits(id, "payout.channel_unknown")).toBe(1);
    await watchers[0]?.liftUnknown(id, NOW + 2);
    expect(await flagOf(id)).toBeNull();

    expect(await watchers[0]?.flagChannel(f(CHANNEL_MISMATCH))).toBe(true);
    expect(await watchers[1]?.flagChannel(f(CHANNEL_UNKNOWN))).toBe(false);
    await watchers[1]?.liftUnknown(id, NOW + 3);
    expect(await flagOf(id)).toBe(CHANNEL_MISMATCH);
    expect(await watchers[0]?.flagIfNone(f(OVERDUE))).toBe(false);
  });
});
