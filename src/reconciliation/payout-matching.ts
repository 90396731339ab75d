/**
 * The rule for debit lines and payouts' returns, as matching.ts is for credits and deposits: pay
 * only what the line proves, suggest the rest, never a wrong one (docs/reconciliation.md, "Debits
 * and payouts"). Pure: the store hands in the pool of payouts (payout-pool.ts) and writes what the
 * outcome says. Only a payout in stage `sent` is ever paid: an id or amount a hostile line carries
 * can name a payout that never went out, and that never approves.
 */
import { idsInText } from "./payment-ids.js";
import {
  fitsByIbanAmount,
  indexOf,
  normalIban,
  normalName,
  type PayoutPool,
  type PoolIndex,
  payoutsSeenAs,
  type SentPayout,
} from "./payout-pool.js";
import type { StatementLine } from "./statement.js";

export type { PayoutPool, SentBatch, SentPayout } from "./payout-pool.js";

export type SuggestWhy =
  /** The line names the payout, but the bank's amount is another. */
  | "amount_differs"
  /** Two or more sent payouts fit alike (two equal payouts to one payee). */
  | "equal_payouts"
  /** A cut id that more than one payout's id begins with. */
  | "cut_id_ambiguous"
  /** The line names several payouts. */
  | "several_ids"
  /** A payout fits, and so does an earlier attempt of a withdrawal: this may be the earlier one. */
  | "earlier_attempt"
  /** A batch's ids that do not add up to the line, or sums of two batches alike. */
  | "batch_unproven"
  /** The amount and the payee's name fit; a name proves nothing. */
  | "name_amount"
  /** Only the amount fits. */
  | "amount"
  /** The line names the payout and its amount, but another payee's IBAN. */
  | "iban_differs";

export type DebitOutcome =
  | { kind: "paid"; attemptIds: number[]; by: "payment_id" | "iban_amount" | "batch" }
  | { kind: "suggested"; attemptIds: number[]; why: SuggestWhy }
  /** The line names a superseded attempt, or a payout another line paid: raised at once. */
  | { kind: "double_payment"; attemptId: number; paymentId: string }
  /** The debit of a payout whose return came first: it proves the money left, and changes nothing. */
  | { kind: "after_return"; attemptId: number }
  | { kind: "fee" }
  | { kind: "unmatched" };

export type ReturnOutcome =
  | { kind: "return"; attemptId: number; reason: string | null; afterPaid: boolean }
  /** Flagged for operators: a return that fits no payout, or fits one only in part. */
  | { kind: "return_unknown"; why: ReturnDoubt; attemptIds: number[] };

export type ReturnDoubt =
  | "no_payout_fits"
  | "several_fit"
  | "amount_differs"
  | "already_returned"
  | "earlier_attempt";

const UNMATCHED: DebitOutcome = { kind: "unmatched" };
/** Suggestions shown for an amount alone: more say nothing. */
const MAX_SUGGESTED = 5;

const ids = (payouts: readonly SentPayout[]) => payouts.map((p) => p.attemptId);
const suggested = (payouts: readonly SentPayout[], why: SuggestWhy): DebitOutcome => ({
  kind: "suggested",
  attemptIds: ids(payouts),
  why,
});

/** What the line's ids name: the payouts one id alone names, and those a cut id leaves in doubt. */
interface Sighting {
  named: SentPayout[];
  doubtful: SentPayout[];
}

/**
 * The payouts the line names. Its EndToEndId is the bank's field for our id: when it names one
 * payout, the description's words (a payer's or a bank's free text) are not read.
 */
function sightingOf(line: StatementLine, index: PoolIndex): Sighting {
  const e2e = line.endToEndId ? payoutsSeenAs(index, line.endToEndId) : [];
  if (e2e.length === 1) return { named: e2e, doubtful: [] };
  const named = new Set<SentPayout>();
  const doubtful = new Set<SentPayout>(e2e);
  for (const token of idsInText(line.description)) {
    const seen = payoutsSeenAs(index, token);
    for (const p of seen) (seen.length === 1 ? named : doubtful).add(p);
  }
  return { named: [...named], doubtful: [...doubtful].filter((p) => !named.has(p)) };
}

const doublePayment = (p: SentPayout): DebitOutcome => ({
  kind: "double_payment",
  attemptId: p.attemptId,
  paymentId: p.paymentId,
});
const alreadyOut = (p: SentPayout) => p.stage === "superseded" || p.stage === "paid";

/** A debit that names one payout: paid with the same amount, only while it is sent. */
function byNamedPayout(line: StatementLine, p: SentPayout): DebitOutcome {
  if (alreadyOut(p)) return doublePayment(p);
  const same = p.amountMinor === line.amountMinor;
  if (p.stage === "returned")
    return same ? { kind: "after_return", attemptId: p.attemptId } : suggested([p], "amount_differs");
  if (!same) return suggested([p], "amount_differs");
  const iban = normalIban(line.senderIban);
  if (iban !== "" && iban !== normalIban(p.payeeIban)) return suggested([p], "iban_differs");
  return { kind: "paid", attemptIds: [p.attemptId], by: "payment_id" };
}

function bySighting(line: StatementLine, s: Sighting): DebitOutcome | null {
  const [only, ...more] = s.named;
  if (only && more.length === 0) return byNamedPayout(line, only);
  const out = s.named.find(alreadyOut);
  if (out) return doublePayment(out);
  if (s.named.length > 1) return suggested(s.named, "several_ids");
  const sent = s.doubtful.filter((p) => p.stage === "sent");
  return sent.length > 0 ? suggested(sent, "cut_id_ambiguous") : null;
}

/** Amount and the payee's IBAN: proven only when one sent payout fits and no earlier attempt does. */
function byIbanAmount(line: StatementLine, index: PoolIndex): DebitOutcome | null {
  if (normalIban(line.senderIban) === "") return null;
  const fits = fitsByIbanAmount(index, line.senderIban as string, line.amountMinor);
  const sent = fits.filter((p) => p.stage === "sent");
  const earlier = fits.filter((p) => p.stage === "superseded");
  if (sent.length === 1 && earlier.length === 0)
    return { kind: "paid", attemptIds: ids(sent), by: "iban_amount" };
  if (sent.length > 1) return suggested(sent, "equal_payouts");
  if (sent.length + earlier.length > 0) return suggested([...sent, ...earlier], "earlier_attempt");
  return null;
}

/**
 * A batch booked as one debit names no payee: its amount is the sum of one sent batch's sent
 * payouts (two or more of them; one alone is a single payout's amount, which proves nothing).
 */
function byBatchSum(line: StatementLine, index: PoolIndex): DebitOutcome | null {
  if (normalIban(line.senderIban) !== "") return null;
  const batches = index.batchesBySum.get(line.amountMinor) ?? [];
  const [only, ...more] = batches;
  if (only && more.length === 0) return { kind: "paid", attemptIds: ids(only), by: "batch" };
  return batches.length > 1 ? suggested(batches.flat(), "batch_unproven") : null;
}

/**
 * A batch with its transfers' ids: it pays the payouts it names when every id names one sent
 * payout and their amounts add up to the line's; a part of a batch pays only that part.
 */
function byListedIds(line: StatementLine, index: PoolIndex, listed: readonly string[]): DebitOutcome {
  const named = new Set<SentPayout>();
  let unknown = 0;
  for (const id of listed) {
    const seen = payoutsSeenAs(index, id);
    if (seen.length === 1) named.add(seen[0] as SentPayout);
    else unknown++;
  }
  const payouts = [...named];
  const out = payouts.find(alreadyOut);
  if (out) return doublePayment(out);
  const sum = payouts.reduce((total, p) => total + p.amountMinor, 0);
  const allSent = payouts.every((p) => p.stage === "sent");
  if (unknown === 0 && allSent && payouts.length === listed.length && sum === line.amountMinor)
    return { kind: "paid", attemptIds: ids(payouts), by: "batch" };
  if (payouts.length === 0) return byBatchSum(line, index) ?? UNMATCHED;
  return suggested(payouts, "batch_unproven");
}

/** What only hints: the amount with the payee's name, or the amount alone where no IBAN contradicts. */
function byHints(line: StatementLine, index: PoolIndex): DebitOutcome {
  const sent = (index.byAmount.get(line.amountMinor) ?? []).filter((p) => p.stage === "sent");
  const name = normalName(line.senderName);
  const named = name === "" ? [] : sent.filter((p) => normalName(p.payeeName) === name);
  if (named.length > 0) return suggested(named.slice(0, MAX_SUGGESTED), "name_amount");
  if (normalIban(line.senderIban) !== "" || sent.length === 0 || sent.length > MAX_SUGGESTED)
    return UNMATCHED;
  return suggested(sent, "amount");
}

/**
 * A debit line against the payouts. A bank's charge is a fee whatever it names; a reversal of a
 * credit (money we got going back) is no payout.
 */
export function matchDebit(line: StatementLine, pool: PayoutPool): DebitOutcome {
  if (line.direction !== "debit" || line.reversal === true) return UNMATCHED;
  if (line.fee === true) return { kind: "fee" };
  const index = indexOf(pool);
  if (line.endToEndIds && line.endToEndIds.length > 0) return byListedIds(line, index, line.endToEndIds);
  return (
    bySighting(line, sightingOf(line, index)) ??
    byIbanAmount(line, index) ??
    byBatchSum(line, index) ??
    byHints(line, index)
  );
}

const returnUnknown = (why: ReturnDoubt, payouts: readonly SentPayout[]): ReturnOutcome => ({
  kind: "return_unknown",
  why,
  attemptIds: ids(payouts),
});

/**
 * A credit that names one payout gives it back only with the whole amount: anyone may send money
 * with a payout's id in its text, and a few kuruş must not put a payout back to be paid again.
 */
function returnOf(line: StatementLine, p: SentPayout): ReturnOutcome {
  if (p.amountMinor !== line.amountMinor) return returnUnknown("amount_differs", [p]);
  if (p.stage === "returned") return returnUnknown("already_returned", [p]);
  if (p.stage === "superseded") return returnUnknown("earlier_attempt", [p]);
  const reason = line.returnInfo?.reason ?? null;
  return { kind: "return", attemptId: p.attemptId, reason, afterPaid: p.stage === "paid" };
}

/** A credit marked as a return that names no payout: the one sent or paid payout that fits it. */
function returnByFit(line: StatementLine, index: PoolIndex): ReturnOutcome {
  const iban = normalIban(line.senderIban);
  const name = normalName(line.senderName);
  const live = (index.byAmount.get(line.amountMinor) ?? []).filter(
    (p) => p.stage === "sent" || p.stage === "paid",
  );
  const byIban = iban === "" ? [] : live.filter((p) => normalIban(p.payeeIban) === iban);
  const fits =
    byIban.length > 0 || name === "" ? byIban : live.filter((p) => normalName(p.payeeName) === name);
  const [only, ...more] = fits;
  if (only && more.length === 0) return returnOf(line, only);
  return fits.length > 1 ? returnUnknown("several_fit", fits) : returnUnknown("no_payout_fits", []);
}

/**
 * A credit against the payouts: a payout's return, a return flagged for operators, or null when
 * the credit neither names a payout nor says it is a return (it goes on to the deposits' rule).
 * A reversal counts as marked: the bank gives back a debit.
 */
export function matchReturn(line: StatementLine, pool: PayoutPool): ReturnOutcome | null {
  if (line.direction !== "credit") return null;
  const index = indexOf(pool);
  const s = sightingOf(line, index);
  const [only, ...more] = s.named;
  if (only && more.length === 0) return returnOf(line, only);
  if (s.named.length > 1) return returnUnknown("several_fit", s.named);
  const marked = line.returnInfo != null || line.reversal === true;
  if (s.doubtful.length > 0) return returnUnknown("several_fit", s.doubtful);
  return marked ? returnByFit(line, index) : null;
}
