import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TransactionStatus } from "../../src/domain/transaction.js";
import type { Store } from "../../src/store/engine/open.js";
import { payoutViolation } from "../../src/store/payouts/payout-errors.js";
import { STORES, type StoreKind } from "../support/harness.js";
import { depositRow, insertAccount, insertFirm } from "../support/rows.js";
import { freshStore } from "../support/store.js";

/**
 * The payout rules as the database keeps them (migration 20261206T1000), written straight into a
 * store of each kind as any writer could: whatever the service does or forgets, an attempt is
 * made only for a pending withdrawal at its amount with no payout mark, once live per withdrawal,
 * with an id never used before, and its fixed fields and ended stage never change; a live attempt
 * holds off decisions and payout marks.
 */
describe.each(STORES)("payout rules in the store (%s)", (kind: StoreKind) => {
  let close: () => Promise<void>;
  let store: Store;
  let firmId: number;
  let accountId: number;
  let batchId: number;
  const NOW = 1_800_000_000_000;
  let seq = 0;

  beforeAll(async () => {
    ({ store, close } = await freshStore(kind));
    firmId = await insertFirm(store, NOW);
    accountId = await insertAccount(store, NOW);
    batchId = await newBatch();
  });
  afterAll(async () => {
    await close?.();
  });

  async function newBatch(): Promise<number> {
    const row = await store.db
      .insertInto("payout_batches")
      .values({
        account_id: accountId,
        firm_id: null,
        stage: "batched",
        payouts: 1,
        total: 100,
        second_reason: null,
        created_by: "t",
        created_at: NOW,
        updated_at: NOW,
      })
      .returning("id")
      .executeTakeFirstOrThrow();
    return Number(row.id);
  }

  async function transaction(
    opts: { type?: "deposit" | "withdrawal"; status?: TransactionStatus; amount?: number } = {},
  ) {
    const reference = `R-${++seq}`;
    const row = {
      ...depositRow({ firmId, accountId, amount: opts.amount ?? 10_000, reference }, NOW),
      type: opts.type ?? "withdrawal",
      status: opts.status ?? "pending",
      iban: "TR330006100519786457841326",
    } as const;
    const written = await store.db
      .insertInto("transactions")
      .values(row)
      .returning("id")
      .executeTakeFirstOrThrow();
    return Number(written.id);
  }

  const attempt = (transactionId: number, o: { amount?: number; paymentId?: string; batch?: number } = {}) =>
    store.db
      .insertInto("payout_attempts")
      .values({
        transaction_id: transactionId,
        batch_id: o.batch ?? batchId,
        firm_id: firmId,
        account_id: accountId,
        payment_id: o.paymentId ?? `PITEST${String(++seq).padStart(10, "0")}`,
        amount: o.amount ?? 10_000,
        payee_name: "Ali Veli",
        payee_iban: "TR330006100519786457841326",
        method: "FAST",
        stage: "batched",
        created_by: "t",
        created_at: NOW,
        updated_at: NOW,
      })
      .returning(["id", "payment_id"])
      .executeTakeFirstOrThrow();

  /** The rule a write broke, or "written" when none did. */
  async function outcome(write: () => Promise<unknown>): Promise<string> {
    try {
      await write();
      return "written";
    } catch (err) {
      return payoutViolation(err) ?? `other: ${(err as Error).message}`;
    }
  }

  const setStage = (id: number, stage: "sent" | "paid" | "cancelled" | "batched" | "returned") =>
    store.db.updateTable("payout_attempts").set({ stage }).where("id", "=", id).execute();

  it("an attempt only for a pending withdrawal, at its amount, without a payout mark", async () => {
    expect(await outcome(async () => attempt(await transaction({ type: "deposit" })))).toBe(
      "payout_attempt_refused",
    );
    for (const status of ["approved", "rejected"] as const)
      expect(await outcome(async () => attempt(await transaction({ status })))).toBe(
        "payout_attempt_refused",
      );
    const pending = await transaction({ amount: 10_000 });
    expect(await outcome(() => attempt(pending, { amount: 9_999 }))).toBe("payout_attempt_refused");
    expect(await outcome(() => attempt(999_999))).not.toBe("written");
    const marked = await transaction();
    await store.db
      .insertInto("payout_claims")
      .values({ transaction_id: marked, operator: "o", claimed_at: NOW })
      .execute();
    expect(await outcome(() => attempt(marked))).toBe("payout_attempt_refused");
    expect(await outcome(() => attempt(pending))).toBe("written");
  });

  it("one live or paid attempt per withdrawal; a payment id names one attempt for ever", async () => {
    const tx = await transaction();
    const first = await attempt(tx);
    expect(await outcome(() => attempt(tx, { batch: batchId }))).toBe("one_live");
    expect(await outcome(async () => attempt(tx, { batch: await newBatch() }))).toBe("one_live");
    await setStage(first.id, "sent");
    expect(await outcome(() => attempt(tx))).toBe("one_live");
    await setStage(first.id, "returned");
    // Returned: a new attempt may be made, never with the old one's id.
    const other = await transaction();
    expect(await outcome(() => attempt(other, { paymentId: first.payment_id }))).toMatch(
      /^other: .*(unique|UNIQUE)/,
    );
    const second = await attempt(tx);
    await setStage(second.id, "paid");
    expect(await outcome(() => attempt(tx))).toBe("one_live");
  });

  it("an attempt's fixed fields never change, and an ended attempt does not move again", async () => {
    const tx = await transaction();
    const a = await attempt(tx);
    const update = (set: Record<string, unknown>) =>
      outcome(() => store.db.updateTable("payout_attempts").set(set).where("id", "=", a.id).execute());
    expect(await update({ payment_id: "PIOTHER000000000" })).toBe("payout_attempt_fixed");
    expect(await update({ amount: 1 })).toBe("payout_attempt_fixed");
    expect(await update({ payee_iban: "TR000000000000000000000001" })).toBe("payout_attempt_fixed");
    expect(await update({ payee_name: "Someone Else" })).toBe("payout_attempt_fixed");
    expect(await update({ method: "EFT" })).toBe("payout_attempt_fixed");
    expect(await update({ account_id: await insertAccount(store, NOW) })).toBe("payout_attempt_fixed");
    expect(await update({ firm_id: await insertFirm(store, NOW) })).toBe("payout_attempt_fixed");
    expect(await update({ transaction_id: await transaction() })).toBe("payout_attempt_fixed");
    expect(await update({ batch_id: await newBatch() })).toBe("payout_attempt_fixed");
    expect(await update({ stage: "sent" })).toBe("written");
    expect(await update({ stage: "paid" })).toBe("written");
    for (const stage of ["sent", "returned", "cancelled", "batched"])
      expect([stage, await update({ stage })]).toEqual([stage, "payout_attempt_fixed"]);
    expect(await update({ flag: "looked at" })).toBe("written");
  });

  it("a live attempt holds off every decision and payout mark; an ended one lets go", async () => {
    const tx = await transaction();
    const a = await attempt(tx);
    const decide = (status: TransactionStatus) =>
      outcome(() =>
        store.db
          .updateTable("transactions")
          .set({ status })
          .where("id", "=", tx)
          .where("status", "=", "pending")
          .execute(),
      );
    const mark = () =>
      outcome(() =>
        store.db
          .insertInto("payout_claims")
          .values({ transaction_id: tx, operator: "o", claimed_at: NOW })
          .execute(),
      );
    for (const stage of ["batched", "sent"] as const) {
      await setStage(a.id, stage);
      expect([stage, await decide("approved"), await decide("rejected"), await mark()]).toEqual([
        stage,
        "payout_in_batch",
        "payout_in_batch",
        "payout_in_batch",
      ]);
    }
    await setStage(a.id, "returned");
    expect(await mark()).toBe("written");
    expect(await decide("rejected")).toBe("written");
  });

  it("a batch is never approved by its maker", async () => {
    const id = await newBatch();
    const approve = (by: string) =>
      outcome(() =>
        store.db
          .updateTable("payout_batches")
          .set({ approved_by: by, approved_at: NOW })
          .where("id", "=", id)
          .execute(),
      );
    expect(await approve("t")).toMatch(/^other: .*(check|CHECK)/);
    expect(await approve("u")).toBe("written");
  });
});
