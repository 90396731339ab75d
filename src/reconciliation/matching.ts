/**
 * Which deposit a statement line pays, decided from evidence alone (docs/reconciliation.md). The
 * one rule that approves: exactly one candidate is proven, by its payment code and the amount, or
 * by the amount and the payer's full name while no other candidate the line could be for has that
 * amount and the line names no other code. Everything else is a suggestion for an operator, ranked,
 * or a payment for a deposit already decided, or nothing we know. A wrong approval sends a merchant
 * money that never came: where in doubt, this module suggests.
 */
import { codesIn, oneOffKeys } from "../domain/payment-code.js";
import {
  type Budget,
  indexWindow,
  type LookedUp,
  lookUp,
  type Wanted,
  type WindowIndex,
} from "./candidate-index.js";
import {
  mayNamePayer,
  type NameEvidence,
  nameEvidence,
  nameFits,
  nameKey,
  type PayerName,
  payerKeyWords,
  type SenderName,
  senderName,
} from "./name-evidence.js";
import type { StatementLine } from "./statement.js";

export interface DepositCandidate {
  id: number;
  firmId: number;
  accountId: number;
  status: "pending" | "approved" | "rejected";
  amountMinor: number;
  createdAt: number;
  payer: PayerName;
  paymentCode: string | null;
  userId: string;
  reference: string;
  /** A test firm's deposit: never approved by a bank's line. */
  sandbox: boolean;
  /** Already settled by another line: a second line never approves or settles it again. */
  settled: boolean;
}

export interface MatchPolicy {
  /** The firm lets lines approve its deposits (on by default). */
  autoApprove: boolean;
  /** An amount and a full name, without the code, may approve (on by default). */
  nameMayApprove: boolean;
}

export interface MatchContext {
  /** How long a deposit waits before auto-cancel: older pending ones are no candidates. */
  pendingWindowMs: number;
  /** How far a deposit's creation may lie after the booking time (clocks differ). */
  clockToleranceMs: number;
  policyOf(firmId: number): MatchPolicy;
  /** Why no line may approve now (a statement that does not balance): proven ones are suggested. */
  approvalsHeld?: HeldApprovals | null;
  /**
   * The pool's window the candidates are a stretch of (candidate-pool.ts), when there is one: the
   * line then meets only the deposits it could point at, looked up (candidate-index.ts).
   */
  window?: readonly DepositCandidate[];
}

/**
 * Why a line may approve nothing, whatever proves it: its statement (or feed batch) does not
 * balance, or more deposits were made around it than one reading of the pool holds.
 */
export interface HeldApprovals {
  code: "unbalanced" | "crowded";
  /** Closing balance − (opening + entries), minor units (unbalanced only; null without balances). */
  differenceMinor: number | null;
  why: string;
}

export interface Evidence {
  code: "exact" | "near" | "none";
  amount: "exact" | "over" | "under";
  name: NameEvidence;
  /** The deposit's user id or reference is written in the description. */
  idInText: boolean;
}

export interface Suggestion {
  depositId: number;
  score: number;
  evidence: Evidence;
}

export type MatchOutcome =
  | { kind: "debit" }
  | { kind: "approve"; depositId: number; proof: "code" | "name"; evidence: Evidence }
  | { kind: "settles"; depositId: number; evidence: Evidence }
  | { kind: "after_cancellation"; depositId: number; evidence: Evidence }
  | {
      kind: "suggest";
      suggestions: Suggestion[];
      why: string;
      /** Set when a deposit was proven but approvals were held back (HeldApprovals). */
      held?: Pick<HeldApprovals, "code" | "differenceMinor">;
    }
  | { kind: "unmatched"; why: string };

const DAY_MS = 86_400_000;
/** Suggestions shown for one line: an operator reads a few, not a list. */
const MAX_SUGGESTIONS = 5;
/**
 * The deposits a line is compared with beyond those its codes and ids find (candidate-index.ts,
 * `lookUp`'s budget): with its amount or its sender's words, and of amounts near it. More than
 * this many share a line's amount or name only in a file made to exhaust the server, or on an
 * account where neither could tell payers apart anyway.
 */
export const LINE_BUDGET: Budget = { taken: 100, reads: 4_000, near: 2_000 };
const CROWDED_BY_LINE: HeldApprovals = {
  code: "crowded",
  differenceMinor: null,
  why: "more deposits share this line's amount or name than one line is compared with",
};

/** The latest a deposit may have been made to be paid by this line, and the earliest. */
function window(line: StatementLine, ctx: MatchContext): { latest: number; earliest: number } {
  const end = line.dateOnly ? line.bookedAt + DAY_MS : line.bookedAt;
  return { latest: end + ctx.clockToleranceMs, earliest: line.bookedAt - ctx.pendingWindowMs };
}

/** What a line says, read once for all its candidates. */
interface LineReading {
  codes: ReturnType<typeof codesIn>;
  exact: Set<string>;
  /** The near codes' one-off keys (payment-code.ts, oneOffKeys). */
  nearKeys: Set<string>;
  /** The description's words, upper case, split at spaces and punctuation but not dashes. */
  words: Set<string>;
  sender: SenderName | null;
}

function readLine(line: StatementLine): LineReading {
  const words = line.description.toUpperCase().split(/[\s,;:/()'"]+|\.(?=\s|$)/u);
  const codes = codesIn(line.description);
  return {
    codes,
    exact: new Set(codes.codes),
    nearKeys: new Set(codes.near.flatMap(oneOffKeys)),
    words: new Set(words.filter((w) => w !== "")),
    sender: senderName(line.senderName),
  };
}

/**
 * Whether anything in the line could point at the deposit (evidenceOf would score it above zero): the
 * same question, asked without building the evidence, since most of a busy account's deposits share
 * nothing with a line and a line meets thousands of them.
 */
function pointsAt(line: StatementLine, c: DepositCandidate, reading: LineReading): boolean {
  if (Math.abs(line.amountMinor - c.amountMinor) <= c.amountMinor * 0.2) return true;
  const code = c.paymentCode;
  if (code !== null && reading.exact.has(code)) return true;
  if (code !== null && reading.nearKeys.size > 0 && keysOf(c, code).some((k) => reading.nearKeys.has(k)))
    return true;
  if (reading.sender !== null && mayNamePayer(reading.sender, c.payer)) return true;
  return idsOf(c).some((id) => reading.words.has(id));
}

/** A candidate's user id and reference as the description's words are compared (upper case, 4+). */
const candidateIds = new WeakMap<DepositCandidate, string[]>();
function idsOf(c: DepositCandidate): string[] {
  let ids = candidateIds.get(c);
  if (!ids) {
    ids = [c.userId, c.reference].filter((id) => id.length >= 4).map((id) => id.toUpperCase());
    candidateIds.set(c, ids);
  }
  return ids;
}

/** A candidate's one-off keys, once per candidate object: a window's candidates meet many lines. */
const candidateKeys = new WeakMap<DepositCandidate, string[]>();
function keysOf(c: DepositCandidate, code: string): string[] {
  let keys = candidateKeys.get(c);
  if (!keys) {
    keys = oneOffKeys(code);
    candidateKeys.set(c, keys);
  }
  return keys;
}

function evidenceOf(line: StatementLine, c: DepositCandidate, reading: LineReading): Evidence {
  const code = c.paymentCode;
  const idInText = idsOf(c).some((id) => reading.words.has(id));
  return {
    code:
      code === null
        ? "none"
        : reading.exact.has(code)
          ? "exact"
          : reading.nearKeys.size > 0 && keysOf(c, code).some((k) => reading.nearKeys.has(k))
            ? "near"
            : "none",
    amount:
      line.amountMinor === c.amountMinor ? "exact" : line.amountMinor > c.amountMinor ? "over" : "under",
    name: nameEvidence(reading.sender, c.payer),
    idInText,
  };
}

/** How strongly the evidence points at the deposit, for ranking suggestions. */
function scoreOf(e: Evidence, line: StatementLine, c: DepositCandidate): number {
  const close = Math.abs(line.amountMinor - c.amountMinor) <= c.amountMinor * 0.2;
  return (
    (e.code === "exact" ? 100 : e.code === "near" ? 50 : 0) +
    (e.amount === "exact" ? 40 : close ? 15 : 0) +
    (e.name === "full" ? 40 : e.name === "partial" ? 15 : 0) +
    (e.idInText ? 30 : 0)
  );
}

export function matchLine(
  line: StatementLine,
  all: readonly DepositCandidate[],
  ctx: MatchContext,
): MatchOutcome {
  if (line.direction === "debit") return { kind: "debit" };
  const { latest, earliest } = window(line, ctx);
  const reading = readLine(line);
  const named = new Set(reading.codes.codes);
  // Decided deposits are looked at as far back as they were given (their payment may come late),
  // but only those the line could be the money of: its amount, or its code. Pending ones only
  // within the window after which auto-cancel takes them.
  const looked: LookedUp<DepositCandidate> =
    ctx.window === undefined
      ? { found: [...all], complete: { amount: true, words: true } }
      : lookUp(indexOf(ctx.window), all, wantedBy(line, reading, { latest, earliest }), LINE_BUDGET);
  const pointed = looked.found;
  const candidates = pointed.filter(
    (c) =>
      !c.sandbox &&
      c.createdAt <= latest &&
      (c.status === "pending"
        ? c.createdAt >= earliest
        : c.amountMinor === line.amountMinor || (c.paymentCode !== null && named.has(c.paymentCode))),
  );
  // A deposit nothing in the line points at plays no part in any rule below: left out at once.
  const rated: Rated[] = [];
  for (const c of candidates) {
    if (!pointsAt(line, c, reading)) continue;
    const e = evidenceOf(line, c, reading);
    if (scoreOf(e, line, c) > 0) rated.push({ c, e });
  }
  if (reading.sender?.cut) provedByCutNameAlone(rated, reading.sender);
  // Every deposit with the line's amount decides whether a name proves one; a cut name, also every
  // one with its words (another payer it fits).
  const crowded = !looked.complete.amount || (reading.sender?.cut === true && !looked.complete.words);
  // A reversal is the bank's own refund, and deposits are in lira: neither is proven for anyone.
  if (line.reversal === true) return suggest(line, rated, "a reversal is money coming back, not a payment");
  if (line.currency !== "TRY")
    return suggest(line, rated, `the line is in ${line.currency}, deposits in TRY`);
  const proven = rated.filter(({ c, e }) =>
    isProven(c, e, rated, reading.codes.codes, ctx.policyOf(c.firmId)),
  );
  if (proven.length === 1) {
    const [{ c, e }] = proven as [(typeof proven)[number]];
    // A name proves a payer only against every deposit the line could be for; a code, alone.
    const held = ctx.approvalsHeld ?? (crowded && e.code !== "exact" ? CROWDED_BY_LINE : null);
    if (held) {
      const suggested = suggest(line, rated, held.why);
      if (suggested.kind !== "suggest") return suggested;
      return { ...suggested, held: { code: held.code, differenceMinor: held.differenceMinor } };
    }
    if (ctx.policyOf(c.firmId).autoApprove)
      return { kind: "approve", depositId: c.id, proof: e.code === "exact" ? "code" : "name", evidence: e };
    return suggest(line, rated, "the firm approves by hand");
  }
  const decided = pointsAtDecided(rated, crowded);
  if (decided) return decided;
  if (proven.length > 1) return suggest(line, rated, "more than one deposit is proven");
  return suggest(line, rated, "no deposit is proven");
}

/** Each window's index, made when a line first meets it. */
const windowIndexes = new WeakMap<readonly DepositCandidate[], WindowIndex<DepositCandidate>>();
function indexOf(window: readonly DepositCandidate[]): WindowIndex<DepositCandidate> {
  let index = windowIndexes.get(window);
  if (!index) {
    index = indexWindow(window, (c) => ({
      amountMinor: c.amountMinor,
      keys: [
        ...(c.paymentCode === null
          ? []
          : [`c:${c.paymentCode}`, ...keysOf(c, c.paymentCode).map((k) => `k:${k}`)]),
        ...idsOf(c).map((id) => `i:${id}`),
      ],
      words: payerKeyWords(c.payer),
    }));
    windowIndexes.set(window, index);
  }
  return index;
}

/** What pointsAt looks for in a deposit, as keys of the window's index: each of its tests, widened. */
function wantedBy(
  line: StatementLine,
  reading: LineReading,
  { latest, earliest }: { latest: number; earliest: number },
): Wanted<DepositCandidate> {
  const sender = reading.sender;
  const last = sender?.words[sender.words.length - 1];
  const pendingHere = (c: DepositCandidate) =>
    c.status === "pending" && !c.sandbox && c.createdAt >= earliest && c.createdAt <= latest;
  return {
    keys: [
      ...[...reading.exact].map((code) => `c:${code}`),
      ...[...reading.nearKeys].map((k) => `k:${k}`),
      ...[...reading.words].map((w) => `i:${w}`),
    ],
    amount: line.amountMinor,
    // A decided deposit with the line's amount bears on it only by its payer's name (isProven,
    // pointsAtDecided): found by the words, if at all.
    byAmount: pendingHere,
    words: sender?.words ?? [],
    beginnings: sender?.cut && last !== undefined ? [last] : [],
    byWord: (c) =>
      pendingHere(c) ||
      (c.status !== "pending" && !c.sandbox && c.createdAt <= latest && c.amountMinor === line.amountMinor),
    // Found by a near amount alone, a deposit scores as a close amount and nothing else: it can only
    // be suggested, ranked by its time among its equals (suggest).
    near: {
      keeps: (c) =>
        pendingHere(c) && !c.settled && Math.abs(line.amountMinor - c.amountMinor) <= c.amountMinor * 0.2,
      time: (c) => c.createdAt,
      count: MAX_SUGGESTIONS,
    },
  };
}

type Rated = { c: DepositCandidate; e: Evidence };

/**
 * A cut name proves a payer only when what is seen of it fits no other candidate's payer of another
 * name ("HACIMUSTAFAOGULLARI MEHMET ABDURRAH" fits Mehmet Abdurrahim's and Mehmet Abdurrahman's):
 * for each it is then only partial. A candidate whose payer fits has a name at least partial, so
 * it is among the rated.
 */
function provedByCutNameAlone(rated: Rated[], sender: SenderName): void {
  const fitting = new Set<string>();
  for (const { c } of rated) if (nameFits(sender, c.payer)) fitting.add(nameKey(c.payer));
  for (const r of rated) {
    if (r.e.name !== "full") continue;
    const another = fitting.size > 1 || (fitting.size === 1 && !fitting.has(nameKey(r.c.payer)));
    if (another) r.e = { ...r.e, name: "partial" };
  }
}

function isProven(
  c: DepositCandidate,
  e: Evidence,
  rated: readonly Rated[],
  codes: readonly string[],
  policy: MatchPolicy,
): boolean {
  if (c.status !== "pending" || c.settled || e.amount !== "exact") return false;
  if (e.code === "exact") return true;
  if (e.name !== "full" || !policy.nameMayApprove) return false;
  // The line names a code that is not this deposit's: whoever it is for, it is not proven for this.
  if (codes.some((code) => code !== c.paymentCode)) return false;
  // Another pending deposit with the same amount: two payers cannot be told apart by the amount.
  // A decided one with the same amount whose payer the name also fits (or an approved one no line
  // has settled yet): the line may be that deposit's money, come late.
  return !rated.some(
    ({ c: other, e: seen }) =>
      other.id !== c.id &&
      other.amountMinor === c.amountMinor &&
      (other.status === "pending" || (!other.settled && seen.name !== "none")),
  );
}

/**
 * A line whose code (or amount and full name, with no pending deposit as good) names a deposit
 * already decided: approved, it settles it; rejected or auto-cancelled, the contract keeps it
 * final, so the money is to be refunded or the merchant asked, never the deposit approved.
 */
function pointsAtDecided(rated: readonly Rated[], crowded: boolean): MatchOutcome | undefined {
  const strong = (r: Rated) =>
    r.e.amount === "exact" && (r.e.code === "exact" || (r.e.name === "full" && r.e.code !== "near"));
  const pending = rated.filter((r) => r.c.status === "pending" && strong(r));
  const decided = rated.filter((r) => r.c.status !== "pending" && strong(r));
  const byCode = decided.filter((r) => r.e.code === "exact");
  const pick =
    byCode.length === 1
      ? byCode[0]
      : !crowded && pending.length === 0 && decided.length === 1
        ? decided[0]
        : undefined;
  if (!pick) return undefined;
  if (pick.c.status === "approved")
    return pick.c.settled ? undefined : { kind: "settles", depositId: pick.c.id, evidence: pick.e };
  return { kind: "after_cancellation", depositId: pick.c.id, evidence: pick.e };
}

function suggest(line: StatementLine, rated: readonly Rated[], why: string): MatchOutcome {
  const suggestions = rated
    .filter(({ c }) => c.status === "pending" && !c.settled)
    .map(({ c, e }) => ({ c, e, score: scoreOf(e, line, c) }))
    .filter((s) => s.score > 0)
    // The strongest first; of equals, the deposit made last before the payment.
    .sort((a, b) => b.score - a.score || b.c.createdAt - a.c.createdAt)
    .slice(0, MAX_SUGGESTIONS)
    .map(({ c, e, score }) => ({ depositId: c.id, score, evidence: e }));
  return suggestions.length === 0
    ? { kind: "unmatched", why: "no pending deposit of this account matches the line" }
    : { kind: "suggest", suggestions, why };
}
