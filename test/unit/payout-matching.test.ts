import { describe, expect, it } from "vitest";
import {
  matchDebit,
  matchReturn,
  type PayoutPool,
  type SentPayout,
} from "../../src/reconciliation/payout-matching.js";
import type { StatementLine } from "../../src/reconciliation/statement.js";

const AT = Date.parse("2026-11-02T10:00:00+03:00");

function payout(attemptId: number, over: Partial<SentPayout> = {}): SentPayout {
  return {
    attemptId,
    transactionId: 1000 + attemptId,
    batchId: 1,
    paymentId: `PI${String(attemptId).padStart(2, "0")}7K3M9Q2X4B8N1P`,
    amountMinor: 100_000 + attemptId,
    payeeIban: `TR1200010000000000000000${String(attemptId).padStart(2, "0")}`,
    payeeName: `AHMET YILMAZ ${attemptId}`,
    stage: "sent",
    sentAt: AT,
    ...over,
  };
}

function debit(over: Partial<StatementLine> = {}): StatementLine {
  return {
    bookedAt: AT + 60_000,
    dateOnly: false,
    amountMinor: 100_001,
    direction: "debit",
    currency: "TRY",
    senderName: null,
    senderIban: null,
    description: "",
    bankRef: null,
    ...over,
  };
}

const credit = (over: Partial<StatementLine> = {}) => debit({ direction: "credit", ...over });
const poolOf = (...payouts: SentPayout[]): PayoutPool => ({ payouts, batches: [] });

describe("a debit against the payouts", () => {
  const one = payout(1);

  it("its EndToEndId with the same amount pays the payout", () => {
    expect(matchDebit(debit({ endToEndId: one.paymentId }), poolOf(one, payout(2)))).toEqual({
      kind: "paid",
      attemptIds: [1],
      by: "payment_id",
    });
  });

  it("the id anywhere in the description, lower-cased or cut (ten characters seen), pays it", () => {
    const pool = poolOf(one, payout(2));
    for (const description of [
      `FAST GIDEN ALICI AHMET YILMAZ ACIKLAMA ${one.paymentId} ODEME`,
      `odeme:${one.paymentId.toLowerCase()}`,
      `EFT ${one.paymentId.slice(0, 15)}`,
    ])
      expect(matchDebit(debit({ description }), pool)).toMatchObject({ kind: "paid", attemptIds: [1] });
  });

  it("a cut id that two payouts begin with, or too short a cut, proves nothing", () => {
    const pool = poolOf(
      payout(1, { paymentId: "PI7K3M9Q2X4B8N01" }),
      payout(2, { paymentId: "PI7K3M9Q2X4B8N02" }),
    );
    expect(matchDebit(debit({ description: "EFT PI7K3M9Q2X4B8N" }), pool)).toMatchObject({
      kind: "suggested",
      why: "cut_id_ambiguous",
    });
    expect(matchDebit(debit({ description: "EFT PI017K3M9" }), poolOf(one))).toMatchObject({
      kind: "suggested",
      why: "amount",
    });
  });

  it("the right id with another amount is suggested, never paid", () => {
    expect(matchDebit(debit({ endToEndId: one.paymentId, amountMinor: 100_002 }), poolOf(one))).toEqual({
      kind: "suggested",
      attemptIds: [1],
      why: "amount_differs",
    });
  });

  it("the right id and amount with another payee's IBAN is suggested", () => {
    const line = debit({ endToEndId: one.paymentId, senderIban: "TR990000000000000000000000" });
    expect(matchDebit(line, poolOf(one))).toMatchObject({ kind: "suggested", why: "iban_differs" });
  });

  it("amount and the payee's IBAN pay the one sent payout that fits", () => {
    const line = debit({ senderIban: one.payeeIban.replace(/(.{4})/g, "$1 ") });
    expect(matchDebit(line, poolOf(one, payout(2)))).toEqual({
      kind: "paid",
      attemptIds: [1],
      by: "iban_amount",
    });
  });

  it("two equal payouts to one payee are never told apart by guess", () => {
    const twin = payout(2, { amountMinor: one.amountMinor, payeeIban: one.payeeIban });
    expect(matchDebit(debit({ senderIban: one.payeeIban }), poolOf(one, twin))).toEqual({
      kind: "suggested",
      attemptIds: [1, 2],
      why: "equal_payouts",
    });
  });

  it("an earlier attempt fitting as well holds the amount-and-IBAN proof back", () => {
    const old = payout(2, { amountMinor: one.amountMinor, payeeIban: one.payeeIban, stage: "superseded" });
    expect(matchDebit(debit({ senderIban: one.payeeIban }), poolOf(one, old))).toMatchObject({
      kind: "suggested",
      why: "earlier_attempt",
    });
  });

  it("a debit naming a superseded attempt, or a payout already paid, is a double payment", () => {
    const old = payout(3, { stage: "superseded" });
    const paid = payout(4, { stage: "paid" });
    expect(
      matchDebit(debit({ endToEndId: old.paymentId, amountMinor: old.amountMinor }), poolOf(old)),
    ).toEqual({
      kind: "double_payment",
      attemptId: 3,
      paymentId: old.paymentId,
    });
    expect(matchDebit(debit({ description: paid.paymentId }), poolOf(paid))).toMatchObject({
      kind: "double_payment",
      attemptId: 4,
    });
  });

  it("a payout's debit after its return proves the money left and pays nothing", () => {
    const back = payout(5, { stage: "returned" });
    expect(
      matchDebit(debit({ endToEndId: back.paymentId, amountMinor: back.amountMinor }), poolOf(back)),
    ).toEqual({
      kind: "after_return",
      attemptId: 5,
    });
  });

  it("a fee is a fee whatever it names; a reversal pays nothing", () => {
    expect(matchDebit(debit({ fee: true, endToEndId: one.paymentId }), poolOf(one))).toEqual({ kind: "fee" });
    expect(matchDebit(debit({ reversal: true, endToEndId: one.paymentId }), poolOf(one))).toEqual({
      kind: "unmatched",
    });
  });

  it("another company's debit is left unmatched; the amount alone only suggests", () => {
    expect(
      matchDebit(debit({ amountMinor: 77, senderIban: "TR990000000000000000000000" }), poolOf(one)),
    ).toEqual({
      kind: "unmatched",
    });
    expect(matchDebit(debit({ senderIban: "TR990000000000000000000000" }), poolOf(one))).toEqual({
      kind: "unmatched",
    });
    expect(matchDebit(debit(), poolOf(one))).toEqual({ kind: "suggested", attemptIds: [1], why: "amount" });
    expect(matchDebit(debit({ senderName: "Ahmet  Yılmaz 1" }), poolOf(one))).toMatchObject({
      why: "name_amount",
    });
  });

  it("a payout that never went out is never paid, whatever the line says", () => {
    for (const stage of ["paid", "returned", "superseded"] as const) {
      const p = payout(6, { stage });
      for (const line of [
        debit({ endToEndId: p.paymentId, amountMinor: p.amountMinor }),
        debit({ amountMinor: p.amountMinor, senderIban: p.payeeIban }),
      ])
        expect(matchDebit(line, poolOf(p)).kind).not.toBe("paid");
    }
  });
});

describe("a batch booked as one debit", () => {
  const batch = [payout(1, { batchId: 7 }), payout(2, { batchId: 7 }), payout(3, { batchId: 7 })];
  const total = batch.reduce((sum, p) => sum + p.amountMinor, 0);
  const pool: PayoutPool = {
    payouts: [...batch, payout(4, { batchId: 8 })],
    batches: [{ batchId: 7, totalMinor: total, attemptIds: [1, 2, 3], sentAt: AT }],
  };

  it("the sum of a sent batch's sent payouts pays the whole batch", () => {
    expect(matchDebit(debit({ amountMinor: total }), pool)).toEqual({
      kind: "paid",
      attemptIds: [1, 2, 3],
      by: "batch",
    });
  });

  it("a payout of the batch paid already leaves the others' sum", () => {
    const partPool = {
      ...pool,
      payouts: pool.payouts.map((p) => (p.attemptId === 1 ? { ...p, stage: "paid" as const } : p)),
    };
    expect(matchDebit(debit({ amountMinor: total }), partPool).kind).not.toBe("paid");
    expect(matchDebit(debit({ amountMinor: total - 100_001 }), partPool)).toMatchObject({
      kind: "paid",
      attemptIds: [2, 3],
    });
  });

  it("with its transfers' ids, it pays only what it names, when their amounts add up", () => {
    const ids = [batch[0], batch[2]].map((p) => p?.paymentId as string);
    expect(matchDebit(debit({ amountMinor: 100_001 + 100_003, endToEndIds: ids }), pool)).toEqual({
      kind: "paid",
      attemptIds: [1, 3],
      by: "batch",
    });
    expect(matchDebit(debit({ amountMinor: 100_001 + 100_002, endToEndIds: ids }), pool)).toMatchObject({
      kind: "suggested",
      why: "batch_unproven",
    });
    expect(
      matchDebit(debit({ amountMinor: total, endToEndIds: [...ids, "PIUNKNOWN00000001"] }), pool),
    ).toMatchObject({
      kind: "suggested",
    });
  });

  it("a debit naming a payee is no batch", () => {
    expect(matchDebit(debit({ amountMinor: total, senderIban: "TR990000000000000000000000" }), pool)).toEqual(
      {
        kind: "unmatched",
      },
    );
  });
});

describe("a credit against the payouts", () => {
  const sent = payout(1);
  const paid = payout(2, { stage: "paid" });
  const pool = poolOf(sent, paid, payout(3));

  it("naming a sent or paid payout with its whole amount, it is that payout's return", () => {
    const reason = { reason: "AC04 HESAP KAPALI" };
    expect(matchReturn(credit({ endToEndId: sent.paymentId, returnInfo: reason }), pool)).toEqual({
      kind: "return",
      attemptId: 1,
      reason: "AC04 HESAP KAPALI",
      afterPaid: false,
    });
    expect(
      matchReturn(credit({ amountMinor: paid.amountMinor, description: `IADE ${paid.paymentId}` }), pool),
    ).toEqual({
      kind: "return",
      attemptId: 2,
      reason: null,
      afterPaid: true,
    });
  });

  it("naming a payout with another amount is flagged, never a return", () => {
    expect(matchReturn(credit({ amountMinor: 1, description: sent.paymentId }), pool)).toEqual({
      kind: "return_unknown",
      why: "amount_differs",
      attemptIds: [1],
    });
  });

  it("marked as a return without an id: the one payout its amount and IBAN or name fit", () => {
    const marked = credit({ returnInfo: { reason: null }, senderIban: sent.payeeIban });
    expect(matchReturn(marked, pool)).toMatchObject({ kind: "return", attemptId: 1 });
    expect(matchReturn(credit({ reversal: true, senderName: sent.payeeName }), pool)).toMatchObject({
      kind: "return",
      attemptId: 1,
    });
    expect(matchReturn(credit({ returnInfo: { reason: "AC01" }, amountMinor: 5 }), pool)).toEqual({
      kind: "return_unknown",
      why: "no_payout_fits",
      attemptIds: [],
    });
  });

  it("a credit that is no return and names no payout goes on to the deposits", () => {
    expect(matchReturn(credit({ description: "FAST GELEN ZEYNEP KOC K7M3PX" }), pool)).toBeNull();
    expect(matchReturn(debit({ endToEndId: sent.paymentId }), pool)).toBeNull();
  });

  it("a second return of a returned payout is flagged", () => {
    const back = payout(4, { stage: "returned" });
    expect(
      matchReturn(credit({ amountMinor: back.amountMinor, endToEndId: back.paymentId }), poolOf(back)),
    ).toMatchObject({
      kind: "return_unknown",
      why: "already_returned",
    });
  });
});
