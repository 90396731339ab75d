import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Store } from "../../src/store/engine/open.js";
import {
  createMovementTransactionRepository,
  type MovementTransactionRepository,
} from "../../src/store/ledger/movement-transactions.js";
import { STORES, type StoreKind } from "../support/harness.js";
import { depositRow, insertAccount, insertFirm, insertSentPayout } from "../support/rows.js";
import { freshStore } from "../support/store.js";

/**
 * The transactions behind a page of a firm's ledger movements (the merchant API's balance days):
 * found by transaction id and by payout attempt in one statement, and never another firm's.
 */
describe.each(STORES)("a page of movements' transactions in the store (%s)", (kind: StoreKind) => {
  let close: () => Promise<void>;
  let store: Store;
  let repo: MovementTransactionRepository;
  let accountId: number;
  const NOW = 1_800_000_000_000;
  let seq = 0;

  beforeAll(async () => {
    ({ store, close } = await freshStore(kind));
    repo = createMovementTransactionRepository(store.db);
    accountId = await insertAccount(store, NOW);
  });
  afterAll(async () => {
    await close?.();
  });

  async function transaction(firmId: number, type: "deposit" | "withdrawal") {
    const reference = `R-${++seq}`;
    const row = await store.db
      .insertInto("transactions")
      .values({
        ...depositRow({ firmId, accountId, amount: 10_000, reference }, NOW),
        type,
        ...(type === "withdrawal" ? { iban: "TR330006100519786457841326" } : {}),
      })
      .returning("id")
      .executeTakeFirstOrThrow();
    return { id: Number(row.id), reference };
  }

  /** A withdrawal of the firm with one payout attempt: the transaction and the attempt's id. */
  async function paidOut(firmId: number) {
    const tx = await transaction(firmId, "withdrawal");
    const paymentId = `PIMOVE${String(seq).padStart(9, "0")}`;
    const attempt = await insertSentPayout(
      store,
      { transactionId: tx.id, firmId, accountId, paymentId },
      NOW,
    );
    return { ...tx, attempt };
  }

  it("finds the firm's own transactions by id and by attempt, and nothing of another firm's", async () => {
    const firm = await insertFirm(store, NOW);
    const other = await insertFirm(store, NOW);
    const deposit = await transaction(firm, "deposit");
    const payout = await paidOut(firm);
    const theirDeposit = await transaction(other, "deposit");
    const theirPayout = await paidOut(other);
    const found = await repo.of(firm, {
      transactions: [deposit.id, theirDeposit.id, 999_999],
      attempts: [payout.attempt, theirPayout.attempt],
    });
    expect([...found.byTransaction]).toEqual([
      [deposit.id, { transactionId: deposit.id, reference: deposit.reference }],
    ]);
    expect([...found.byAttempt]).toEqual([
      [payout.attempt, { transactionId: payout.id, reference: payout.reference }],
    ]);
  });

  it("asks nothing for an empty page, and reads either side alone", async () => {
    const firm = await insertFirm(store, NOW);
    const deposit = await transaction(firm, "deposit");
    const payout = await paidOut(firm);
    const none = await repo.of(firm, { transactions: [], attempts: [] });
    expect([none.byTransaction.size, none.byAttempt.size]).toEqual([0, 0]);
    const direct = await repo.of(firm, { transactions: [deposit.id], attempts: [] });
    expect(direct.byTransaction.get(deposit.id)?.reference).toBe(deposit.reference);
    const attempts = await repo.of(firm, { transactions: [], attempts: [payout.attempt] });
    expect(attempts.byAttempt.get(payout.attempt)).toEqual({
      transactionId: payout.id,
      reference: payout.reference,
    });
  });
});
