import { describe, expect, it } from "vitest";
import { newPaymentCode } from "../../src/domain/payment-code.js";
import { lineView } from "../../src/reconciliation/line-views.js";
import {
  type DepositCandidate,
  type MatchContext,
  type MatchOutcome,
  matchLine,
  type Stop,
} from "../../src/reconciliation/matching.js";
import type { StatementLine } from "../../src/reconciliation/statement.js";
import type { StatementLineRow } from "../../src/store/statements/statement-lines.js";

/**
 * What stopped a line from approving, as values beside its `why` (issue 49, point 3): the README's
 * own deposit (150.00, Ayşe Yılmaz) suggested because an earlier one of the same name and amount
 * was decided, and every other reason the rule has, each named with the deposits in its way.
 */
const NOW = Date.UTC(2026, 10, 2, 12);
const ctx: MatchContext = {
  pendingWindowMs: 3_600_000,
  clockToleranceMs: 60_000,
  policyOf: () => ({ autoApprove: true, nameMayApprove: true }),
};
const ayse = { firstName: "Ayşe", middleName: null, lastName: "Yılmaz" };
const deposit = (id: number, over: Partial<DepositCandidate> = {}): DepositCandidate => ({
  id,
  firmId: 1,
  accountId: 1,
  status: "pending",
  amountMinor: 15_000,
  createdAt: NOW - 600_000 + id,
  payer: ayse,
  paymentCode: newPaymentCode(() => id),
  userId: `user-${id}`,
  reference: `ref-${id}`,
  sandbox: false,
  settled: false,
  ...over,
});
const line = (over: Partial<StatementLine> = {}): StatementLine => ({
  bookedAt: NOW,
  dateOnly: false,
  amountMinor: 15_000,
  direction: "credit",
  currency: "TRY",
  senderName: "AYSE YILMAZ",
  senderIban: null,
  description: "",
  bankRef: "r1",
  ...over,
});
const stops = (outcome: MatchOutcome): Stop[] => {
  expect(outcome.kind).toBe("suggest");
  return outcome.kind === "suggest" ? outcome.stoppedBy : [];
};
/** A valid code one character off `code` (the check character catches it): a near code. */
const oneOff = (code: string) => `${code[0] === "A" ? "C" : "A"}${code.slice(1)}`;

describe("a suggestion says what stopped it", () => {
  it("the README's deposit: an earlier one with the same name and amount, decided, is named with its status", () => {
    for (const status of ["approved", "rejected"] as const) {
      const earlier = deposit(1, { status, createdAt: NOW - 7_200_000 });
      const outcome = matchLine(line(), [earlier, deposit(2)], ctx);
      // The words stay as they were; the reason beside them names the deposit.
      expect(outcome).toMatchObject({ kind: "suggest", why: "no deposit is proven" });
      expect(stops(outcome)).toEqual([
        { code: "same_amount_decided", depositId: 2, others: [{ id: 1, status }] },
      ]);
    }
  });

  it("an earlier deposit already settled by its own line stands in no one's way", () => {
    const earlier = deposit(1, { status: "approved", settled: true, createdAt: NOW - 7_200_000 });
    expect(matchLine(line(), [earlier, deposit(2)], ctx)).toMatchObject({ kind: "approve", depositId: 2 });
  });

  it("other pending deposits with the amount, for each suggestion; a name that differs", () => {
    const can = { firstName: "Can", middleName: null, lastName: "Demir" };
    const outcome = matchLine(line(), [deposit(1), deposit(2, { payer: can }), deposit(3)], ctx);
    expect(outcome.kind === "suggest" && outcome.suggestions.map((s) => s.depositId)).toEqual([3, 1, 2]);
    expect(stops(outcome)).toEqual([
      {
        code: "same_amount_pending",
        depositId: 3,
        others: [
          { id: 2, status: "pending" },
          { id: 1, status: "pending" },
        ],
      },
      {
        code: "same_amount_pending",
        depositId: 1,
        others: [
          { id: 3, status: "pending" },
          { id: 2, status: "pending" },
        ],
      },
      { code: "name_differs", depositId: 2 },
      {
        code: "same_amount_pending",
        depositId: 2,
        others: [
          { id: 3, status: "pending" },
          { id: 1, status: "pending" },
        ],
      },
    ]);
  });

  it("a partial name, and an amount that differs (which says all)", () => {
    expect(stops(matchLine(line({ senderName: "FATMA YILMAZ" }), [deposit(1)], ctx))).toEqual([
      { code: "name_differs", depositId: 1 },
    ]);
    expect(stops(matchLine(line({ amountMinor: 14_000 }), [deposit(1)], ctx))).toEqual([
      { code: "amount_differs", depositId: 1 },
    ]);
  });

  it("a code one character off", () => {
    const d = deposit(1);
    const outcome = matchLine(
      line({ senderName: "KEMAL SUNAL", description: `odeme ${oneOff(d.paymentCode as string)}` }),
      [d],
      ctx,
    );
    expect(outcome.kind === "suggest" && outcome.suggestions[0]?.evidence.code).toBe("near");
    expect(stops(outcome)).toEqual([
      { code: "code_near", depositId: 1 },
      { code: "name_differs", depositId: 1 },
    ]);
  });

  it("a description naming another deposit's code", () => {
    const other = newPaymentCode(() => 9);
    expect(stops(matchLine(line({ description: `odeme ${other}` }), [deposit(1)], ctx))).toEqual([
      { code: "other_code", depositId: 1 },
    ]);
  });

  it("a firm that approves by hand, or only by a payment code", () => {
    const byHand = { ...ctx, policyOf: () => ({ autoApprove: false, nameMayApprove: true }) };
    const outcome = matchLine(line(), [deposit(1)], byHand);
    expect(outcome).toMatchObject({ why: "the firm approves by hand" });
    expect(stops(outcome)).toEqual([{ code: "firm_approves_by_hand", depositId: 1 }]);
    const codeOnly = { ...ctx, policyOf: () => ({ autoApprove: true, nameMayApprove: false }) };
    expect(stops(matchLine(line(), [deposit(1)], codeOnly))).toEqual([
      { code: "name_may_not_approve", depositId: 1 },
    ]);
  });

  it("a statement held, unbalanced or crowded: the proven deposit named, beside `held`", () => {
    const unbalanced = { code: "unbalanced" as const, differenceMinor: -500, why: "an unbalanced statement" };
    const outcome = matchLine(line(), [deposit(1)], { ...ctx, approvalsHeld: unbalanced });
    expect(outcome).toMatchObject({ held: { code: "unbalanced", differenceMinor: -500 } });
    expect(stops(outcome)).toEqual([{ code: "held_unbalanced", depositId: 1 }]);
    const crowded = { code: "crowded" as const, differenceMinor: null, why: "crowded" };
    expect(stops(matchLine(line(), [deposit(1)], { ...ctx, approvalsHeld: crowded }))).toEqual([
      { code: "held_crowded", depositId: 1 },
    ]);
  });

  it("a reversal or another currency: the line's reason first, then each suggestion's", () => {
    expect(stops(matchLine(line({ reversal: true }), [deposit(1)], ctx))).toEqual([{ code: "reversal" }]);
    const can = { firstName: "Can", middleName: null, lastName: "Demir" };
    expect(stops(matchLine(line({ currency: "USD" }), [deposit(1, { payer: can })], ctx))).toEqual([
      { code: "other_currency" },
      { code: "name_differs", depositId: 1 },
    ]);
  });

  it("more than one deposit proven: both named", () => {
    const a = deposit(1);
    const b = deposit(2, { payer: { firstName: "Can", middleName: null, lastName: "Demir" } });
    const outcome = matchLine(line({ description: `${a.paymentCode} ${b.paymentCode}` }), [a, b], ctx);
    expect(stops(outcome)).toEqual([
      {
        code: "more_than_one_proven",
        others: [
          { id: 2, status: "pending" },
          { id: 1, status: "pending" },
        ],
      },
    ]);
  });

  it("names the newest five deposits in its way, and how many there were", () => {
    const many = Array.from({ length: 12 }, (_, i) => deposit(i + 1));
    const [top] = stops(matchLine(line(), many, ctx));
    expect(top).toEqual({
      code: "same_amount_pending",
      depositId: 12,
      others: [11, 10, 9, 8, 7].map((id) => ({ id, status: "pending" })),
      othersCount: 11,
    });
  });

  it("a name the bank cut that fits another payer too: that payer's deposit named", () => {
    const abdurrahim = { firstName: "Mehmet", middleName: "Abdurrahim", lastName: "Hacımustafaoğulları" };
    const abdurrahman = { firstName: "Mehmet", middleName: "Abdurrahman", lastName: "Hacımustafaoğulları" };
    const outcome = matchLine(
      line({ senderName: "HACIMUSTAFAOGULLARI MEHMET ABDURRAH" }),
      [deposit(1, { payer: abdurrahim }), deposit(2, { payer: abdurrahman, amountMinor: 27_500 })],
      ctx,
    );
    expect(stops(outcome)).toContainEqual({
      code: "cut_name_fits_others",
      depositId: 1,
      others: [{ id: 2, status: "pending" }],
    });
  });
});

describe("the line's view", () => {
  const row = (evidence: unknown): StatementLineRow =>
    ({
      id: 7,
      account_id: 1,
      booked_at: NOW,
      date_only: 0,
      amount: 15_000,
      direction: "credit",
      currency: "TRY",
      sender_name: "AYSE YILMAZ",
      sender_iban: null,
      description: "",
      bank_ref: "r1",
      state: "suggested",
      transaction_id: null,
      evidence: JSON.stringify(evidence),
      source: "file",
      created_at: NOW,
      decided_at: null,
      decided_by: null,
    }) as unknown as StatementLineRow;

  it("writes the reasons in the API's words, the deposits with their status", () => {
    const earlier = deposit(1, { status: "rejected", createdAt: NOW - 7_200_000 });
    const view = lineView(row(matchLine(line(), [earlier, deposit(2)], ctx)));
    expect(view.stopped_by).toEqual([
      {
        code: "same_amount_decided",
        deposit_id: 2,
        deposits: [{ id: 1, status: "rejected" }],
        deposit_count: 1,
      },
    ]);
    const reversal = lineView(row(matchLine(line({ reversal: true }), [deposit(1)], ctx)));
    expect(reversal.stopped_by).toEqual([
      { code: "reversal", deposit_id: null, deposits: [], deposit_count: 0 },
    ]);
    const crowd = lineView(
      row(
        matchLine(
          line(),
          Array.from({ length: 9 }, (_, i) => deposit(i + 1)),
          ctx,
        ),
      ),
    );
    expect(crowd.stopped_by[0]).toMatchObject({ deposit_id: 9, deposit_count: 8 });
    expect(crowd.stopped_by[0]?.deposits).toHaveLength(5);
  });

  it("a line matched before the reasons were kept still shows, with none", () => {
    const old = { kind: "suggest", why: "no deposit is proven", suggestions: [] };
    expect(lineView(row(old)).stopped_by).toEqual([]);
    expect(lineView(row({ kind: "approve", depositId: 1 })).stopped_by).toEqual([]);
  });
});
