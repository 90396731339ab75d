import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  cashAccount,
  firmAccount,
  inTransitAccount,
  normalBalance,
  type PostingDraft,
  parseAccountKey,
  postingProblem,
} from "../../src/domain/ledger.js";
import { commissionFor } from "../../src/ledger/commission.js";
import {
  adjustment,
  bankFee,
  depositApproved,
  lineHeld,
  openingBalance,
  payoutPaid,
  payoutReturned,
  payoutSent,
  refundDue,
  settlement,
  withdrawalPaidByHand,
} from "../../src/ledger/postings.js";

const IBAN = "TR330006100519786457841326";
const at = Date.parse("2026-12-01T09:00:00Z");
const actor = "operator:1";
const none = { commission: 0, net: 0, capped: false };
const pct = (bp: number, amount: number, fixed = 0) =>
  commissionFor(
    { firmId: 7, kind: "deposit", percentBp: bp, fixed, min: null, max: null, fromAt: 0 },
    amount,
  );

/** Balances of a run of postings, on each account's normal side: a ledger in memory. */
function balances(postings: readonly PostingDraft[]): Map<string, number> {
  const debit = new Map<string, number>();
  for (const p of postings)
    for (const l of p.lines) debit.set(l.account, (debit.get(l.account) ?? 0) + l.amount);
  return new Map(
    [...debit].map(
      ([k, v]) => [k, normalBalance(parseAccountKey(k)?.kind ?? "equity", v)] as [string, number],
    ),
  );
}

/** What posts when (docs/ledger.md): each event's posting, pure. */
describe("posting rules", () => {
  it("a deposit approved: cash in, the firm credited less its commission, keyed by the deposit", () => {
    const p = depositApproved({
      transactionId: 42,
      firmId: 7,
      amount: 100_000,
      commission: pct(150, 100_000),
      source: { iban: IBAN },
      at,
      actor,
    });
    expect(p.key).toBe("deposit-approved:42");
    expect(postingProblem(p)).toBeNull();
    const b = balances([p]);
    expect(b.get(cashAccount(IBAN))).toBe(100_000);
    expect(b.get(firmAccount(7))).toBe(98_500);
    expect(b.get("commission")).toBe(1500);
    expect(p.flag).toBeNull();
  });

  it("a commission larger than the amount is capped and flagged; the firm may end at zero, the decision stands", () => {
    const p = depositApproved({
      transactionId: 1,
      firmId: 7,
      amount: 200,
      commission: pct(0, 200, 500),
      source: { iban: IBAN },
      at,
      actor,
    });
    expect(p.flag).toBe("commission_capped");
    expect(balances([p]).get(firmAccount(7))).toBe(0);
    expect(postingProblem(p)).toBeNull();
  });

  it("money held for nobody, later given to a deposit: cash once, suspense back to zero", () => {
    const held = lineHeld({ lineId: 9, iban: IBAN, amount: 5000, at, actor: "service:reconcile" });
    const given = depositApproved({
      transactionId: 3,
      firmId: 7,
      amount: 5000,
      commission: none,
      source: { heldLineId: 9 },
      at,
      actor,
    });
    const b = balances([held, given]);
    expect(b.get(cashAccount(IBAN))).toBe(5000);
    expect(b.get("suspense")).toBe(0);
    expect(b.get(firmAccount(7))).toBe(5000);
    const refunded = balances([
      lineHeld({ lineId: 10, iban: IBAN, amount: 700, at, actor }),
      refundDue({ lineId: 10, amount: 700, at, actor }),
    ]);
    expect(refunded.get("refunds_due")).toBe(700);
    expect(refunded.get("suspense")).toBe(0);
  });

  it("a payout: sent into transit, paid out of cash with its commission, returned back to the firm", () => {
    const c = pct(100, 40_000);
    const sent = payoutSent({ attemptId: 5, firmId: 7, amount: 40_000, at, actor });
    const paid = payoutPaid({
      attemptId: 5,
      firmId: 7,
      iban: IBAN,
      amount: 40_000,
      commission: c,
      at,
      actor,
    });
    expect([sent.key, paid.key]).toEqual(["payout-sent:5", "payout-paid:5"]);
    let b = balances([sent]);
    expect(b.get(firmAccount(7))).toBe(-40_000);
    expect(b.get(inTransitAccount(7))).toBe(40_000);
    b = balances([sent, paid]);
    expect(b.get(inTransitAccount(7))).toBe(0);
    expect(b.get(cashAccount(IBAN))).toBe(-40_000);
    expect(b.get(firmAccount(7))).toBe(-40_400);
    const back = payoutReturned({
      attemptId: 5,
      firmId: 7,
      amount: 40_000,
      reason: "AC04",
      paid: { iban: IBAN, commission: 400 },
      at,
      actor,
    });
    b = balances([sent, paid, back]);
    expect(b.get(firmAccount(7))).toBe(0);
    expect(b.get(cashAccount(IBAN))).toBe(0);
    expect(b.get("commission")).toBe(0);
    // Never left the bank (failed after sent): from transit straight back.
    b = balances([
      sent,
      payoutReturned({ attemptId: 5, firmId: 7, amount: 40_000, reason: "failed", paid: null, at, actor }),
    ]);
    expect(b.get(firmAccount(7))).toBe(0);
    expect(b.get(inTransitAccount(7))).toBe(0);
    const byHand = withdrawalPaidByHand({
      transactionId: 8,
      firmId: 7,
      iban: IBAN,
      amount: 1000,
      commission: pct(100, 1000),
      at,
      actor,
    });
    expect(balances([byHand]).get(firmAccount(7))).toBe(-1010);
  });

  it("bank fees, settlements, adjustments and opening balances", () => {
    const b = balances([
      bankFee({ lineId: 1, iban: IBAN, amount: 350, at, actor }),
      settlement({ settlementId: "s1", firmId: 7, iban: IBAN, amount: 10_000, at, actor }),
    ]);
    expect(b.get("bank_fees")).toBe(350);
    expect(b.get(firmAccount(7))).toBe(-10_000);
    expect(b.get(cashAccount(IBAN))).toBe(-10_350);
    expect(adjustment({ adjustmentId: 1, firmId: 7, amount: 100, reason: "  ", at, actor })).toEqual({
      ok: false,
      problem: "reason_required",
    });
    expect(adjustment({ adjustmentId: 1, firmId: 7, amount: 0, reason: "r", at, actor })).toEqual({
      ok: false,
      problem: "zero_amount",
    });
    const down = adjustment({
      adjustmentId: 2,
      firmId: 7,
      amount: -250,
      reason: "fee agreed by phone",
      at,
      actor,
    });
    if (!down.ok) throw new Error(down.problem);
    expect(down.posting.memo).toBe("fee agreed by phone");
    expect(balances([down.posting]).get(firmAccount(7))).toBe(-250);
    const open = [
      openingBalance({ account: firmAccount(7), balance: 1_000_000, memo: "settled outside", at, actor }),
      openingBalance({ account: cashAccount(IBAN), balance: 1_200_000, memo: "bank's figure", at, actor }),
    ].filter((p): p is PostingDraft => p !== null);
    const ob = balances(open);
    expect(ob.get(firmAccount(7))).toBe(1_000_000);
    expect(ob.get(cashAccount(IBAN))).toBe(1_200_000);
    expect(ob.get("opening")).toBe(200_000); // the company's own: cash less what it owes
    expect(openingBalance({ account: "equity", balance: 0, memo: "", at, actor })).toBeNull();
  });

  it("every rule's posting sums to zero, and a firm's balance is deposits − withdrawals − commissions (property)", () => {
    const event = fc.record({
      kind: fc.constantFrom("deposit", "held_deposit", "payout", "returned", "by_hand", "settlement"),
      amount: fc.integer({ min: 1, max: 99_999_999_999 }),
      bp: fc.integer({ min: 0, max: 10_000 }),
      fixed: fc.integer({ min: 0, max: 10_000 }),
    });
    fc.assert(
      fc.property(fc.array(event, { maxLength: 30 }), (events) => {
        const postings: PostingDraft[] = [];
        let expected = 0;
        for (const [i, e] of events.entries()) {
          const c = pct(e.bp, e.amount, e.fixed);
          const base = { firmId: 7, amount: e.amount, at, actor };
          if (e.kind === "deposit" || e.kind === "held_deposit") {
            if (e.kind === "held_deposit")
              postings.push(lineHeld({ lineId: i, iban: IBAN, amount: e.amount, at, actor }));
            const source = e.kind === "deposit" ? { iban: IBAN } : { heldLineId: i };
            postings.push(depositApproved({ ...base, transactionId: i, commission: c, source }));
            expected += c.net;
          } else if (e.kind === "by_hand") {
            postings.push(withdrawalPaidByHand({ ...base, transactionId: i, iban: IBAN, commission: c }));
            expected -= e.amount + c.commission;
          } else if (e.kind === "settlement") {
            postings.push(settlement({ ...base, settlementId: i, iban: IBAN }));
            expected -= e.amount;
          } else {
            postings.push(
              payoutSent({ ...base, attemptId: i }),
              payoutPaid({ ...base, attemptId: i, iban: IBAN, commission: c }),
            );
            expected -= e.amount + c.commission;
            if (e.kind === "returned") {
              postings.push(
                payoutReturned({
                  ...base,
                  attemptId: i,
                  reason: "r",
                  paid: { iban: IBAN, commission: c.commission },
                }),
              );
              expected += e.amount + c.commission;
            }
          }
        }
        for (const p of postings) expect(postingProblem(p)).toBeNull();
        expect(new Set(postings.map((p) => p.key)).size).toBe(postings.length);
        const b = balances(postings);
        expect(b.get(firmAccount(7)) ?? 0).toBe(expected);
        expect(b.get("suspense") ?? 0).toBe(0);
        expect(b.get(inTransitAccount(7)) ?? 0).toBe(0);
        // Cash is what came in less what went out: the firm's balance plus the company's commission.
        expect(b.get(cashAccount(IBAN)) ?? 0).toBe(expected + (b.get("commission") ?? 0));
      }),
    );
  });
});
