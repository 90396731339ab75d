import { describe, expect, it } from "vitest";
import type { DayPosting } from "../../src/ledger/day-report.js";
import { merchantMovement } from "../../src/ledger/merchant-balance.js";
import type { MovementTransactions } from "../../src/store/ledger/movement-transactions.js";

/**
 * A posting of a firm's day as its merchant reads it (ledger/merchant-balance.ts): gross, fee and
 * net that add up, the type named for the merchant, and the transaction only where the store found
 * it among the firm's own.
 */
const posting = (
  p: Partial<DayPosting> & Pick<DayPosting, "key" | "kind" | "amount" | "parts">,
): DayPosting => ({
  id: 7,
  at: "2026-12-07T08:00:00.000Z",
  memo: "an operator's note",
  ...p,
});

const found: MovementTransactions = {
  byTransaction: new Map([[41, { transactionId: 41, reference: "ORD-41" }]]),
  byAttempt: new Map([[3, { transactionId: 52, reference: "WD-52" }]]),
};

describe("a day's posting as a merchant's balance movement", () => {
  it("a deposit: gross, the commission as its fee, net; its transaction and reference", () => {
    const m = merchantMovement(
      posting({
        key: "deposit-approved:41",
        kind: "deposit_approved",
        amount: "99.00",
        parts: { deposit: "100.00", commission: "-1.00" },
      }),
      found,
    );
    expect(m).toEqual({
      id: 7,
      type: "deposit",
      transaction_id: 41,
      reference: "ORD-41",
      amount: "100.00",
      fee: "1.00",
      net: "99.00",
      at: "2026-12-07T08:00:00.000Z",
    });
  });

  it("a payout's stages name its withdrawal through the attempt: sent without a fee, paid the fee alone, a return gives the fee back", () => {
    const sent = merchantMovement(
      posting({
        key: "payout-sent:3",
        kind: "withdrawal_sent",
        amount: "-20.00",
        parts: { withdrawal: "-20.00" },
      }),
      found,
    );
    expect(sent).toMatchObject({ type: "withdrawal_sent", transaction_id: 52, reference: "WD-52" });
    expect([sent.amount, sent.fee, sent.net]).toEqual(["-20.00", "0.00", "-20.00"]);
    const paid = merchantMovement(
      posting({
        key: "payout-paid:3",
        kind: "withdrawal_paid",
        amount: "-2.50",
        parts: { commission: "-2.50" },
      }),
      found,
    );
    expect([paid.type, paid.amount, paid.fee, paid.net]).toEqual([
      "withdrawal_paid",
      "0.00",
      "2.50",
      "-2.50",
    ]);
    const back = merchantMovement(
      posting({
        key: "payout-returned:3",
        kind: "withdrawal_returned",
        amount: "22.50",
        parts: { return: "20.00", commission: "2.50" },
      }),
      found,
    );
    expect([back.type, back.amount, back.fee, back.net]).toEqual([
      "withdrawal_returned",
      "20.00",
      "-2.50",
      "22.50",
    ]);
    expect(back.reference).toBe("WD-52");
  });

  it("names no transaction the store did not find among the firm's own, nor for a posting of none", () => {
    const foreign = merchantMovement(
      posting({
        key: "deposit-approved:999",
        kind: "deposit_approved",
        amount: "5.00",
        parts: { deposit: "5.00" },
      }),
      found,
    );
    expect([foreign.transaction_id, foreign.reference]).toEqual([null, null]);
    const adjustment = merchantMovement(
      posting({ key: "adjustment:4", kind: "adjustment", amount: "-1.00", parts: { adjustment: "-1.00" } }),
      found,
    );
    expect(adjustment).toMatchObject({ type: "adjustment", transaction_id: null, fee: "0.00", net: "-1.00" });
    // A kind this table does not know yet is "other", never a crash.
    const odd = merchantMovement(
      posting({ key: "something:1", kind: "something_new", amount: "1.00", parts: { deposit: "1.00" } }),
      found,
    );
    expect(odd.type).toBe("other");
  });

  it("carries no key, memo or entry kind", () => {
    const m = merchantMovement(
      posting({
        key: "withdrawal-paid:41",
        kind: "withdrawal_paid",
        amount: "-22.50",
        parts: { withdrawal: "-20.00", commission: "-2.50" },
      }),
      found,
    );
    expect(Object.keys(m).sort()).toEqual(
      ["amount", "at", "fee", "id", "net", "reference", "transaction_id", "type"].sort(),
    );
    expect(JSON.stringify(m)).not.toMatch(/withdrawal-paid|note|parts/);
  });
});
