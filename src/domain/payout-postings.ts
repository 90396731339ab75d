/**
 * How a posting is drafted (`move`, `draft`), and the two rules of a payout's stages that the store
 * applies itself: sent, and back (returned by the payee's bank, refused by a channel). They live
 * here, not in src/ledger/postings.ts (which re-exports them beside the other rules), because the
 * store writes them in the stage's own database transaction whoever moves it (a file marked sent,
 * a release, a statement line, a channel's answer), and the store imports the domain only. Pure.
 */
import {
  type AccountKey,
  cashAccount,
  type EntryKind,
  firmAccount,
  inTransitAccount,
  type PostingDraft,
  type PostingKind,
  type PostingLine,
} from "./ledger.js";

export interface PostingEvent {
  at: number;
  actor: string;
}

/** `amount` moved from one account to another: `to` debited, `from` credited. */
export function move(
  to: AccountKey,
  from: AccountKey,
  amount: number,
  kind: EntryKind,
  fromKind = kind,
): PostingLine[] {
  if (!Number.isSafeInteger(amount) || amount <= 0) throw new RangeError(`not an amount in kuruş: ${amount}`);
  return [
    { account: to, amount, kind },
    { account: from, amount: -amount, kind: fromKind },
  ];
}

export function draft(
  key: string,
  kind: PostingKind,
  e: PostingEvent,
  lines: PostingLine[],
  extra: Partial<Pick<PostingDraft, "memo" | "flag">> = {},
): PostingDraft {
  return { key, kind, at: e.at, actor: e.actor, corrects: null, memo: null, flag: null, ...extra, lines };
}

/** A payout sent to the bank: the firm's money leaves its balance and waits in transit. */
export function payoutSent(
  e: PostingEvent & { attemptId: number; firmId: number; amount: number },
): PostingDraft {
  return draft(
    `payout-sent:${e.attemptId}`,
    "withdrawal_sent",
    e,
    move(firmAccount(e.firmId), inTransitAccount(e.firmId), e.amount, "withdrawal", "transit"),
  );
}

/**
 * A payout that came back: from the bank account when it had left (its commission given back too),
 * or from transit when it never left (failed, cancelled after it was sent). Back to the firm.
 */
export function payoutReturned(
  e: PostingEvent & {
    attemptId: number;
    firmId: number;
    amount: number;
    reason: string;
    /** Paid first: the bank account it left and the commission it was charged; null: it never left. */
    paid: { iban: string; commission: number } | null;
  },
): PostingDraft {
  const lines = e.paid
    ? [
        ...move(cashAccount(e.paid.iban), firmAccount(e.firmId), e.amount, "return"),
        ...(e.paid.commission > 0
          ? move("commission", firmAccount(e.firmId), e.paid.commission, "commission")
          : []),
      ]
    : move(inTransitAccount(e.firmId), firmAccount(e.firmId), e.amount, "transit", "return");
  return draft(`payout-returned:${e.attemptId}`, "withdrawal_returned", e, lines, { memo: e.reason });
}
