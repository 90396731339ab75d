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

/**
 * What stopped a line from approving, as values beside its `why` (docs/reconciliation.md, "Reading a
 * suggestion's reasons"). With `depositId`, about that suggestion: why it is not proven, or (for a
 * proven one) why the line still did not approve it; without, about the line. `others` are the
 * deposits that stood in its way, with their status when the line was matched.
 */
export interface Stop {
  code: StopCode;
  depositId?: number;
  others?: { id: number; status: DepositCandidate["status"] }[];
  /** How many stood in its way, when more than `others` names. */
  othersCount?: number;
}

/** The most deposits one reason names (othersOf). */
const NAMED_IN_A_REASON = 5;

export type StopCode =
  /** The suggestion's amount is not the line's. */
  | "amount_differs"
  /** The sender's name is not the payer's in full (Evidence.name says how far it fits). */
  | "name_differs"
  /** The sender's name is cut by the bank, and what is seen of it fits other payers too (`others`). */
  | "cut_name_fits_others"
  /** A code in the description is one character off this deposit's: a hint, no proof. */
  | "code_near"
  /** The description names a valid code that is not this deposit's. */
  | "other_code"
  /** Amount and full name, but the firm lets only a payment code approve. */
  | "name_may_not_approve"
  /** Other pending deposits with the same amount (`others`): the amount cannot tell payers apart. */
  | "same_amount_pending"
  /** Decided deposits with the same amount whose payer the name fits too (`others`): it may be theirs, come late. */
  | "same_amount_decided"
  /** Proven, but the firm approves by hand. */
  | "firm_approves_by_hand"
  /** Proven, but its statement (or feed batch) does not balance or gives no balances. */
  | "held_unbalanced"
  /** Proven by name, but more deposits bear on the line than it is compared with. */
  | "held_crowded"
  /** More than one deposit is proven (`others`). */
  | "more_than_one_proven"
  /** The line is the bank's reversal: money coming back. */
  | "reversal"
  /** The line is in another currency than the deposits' lira. */
  | "other_currency";

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
      /** What stopped each suggestion and the line (rows stored before it have none: line-views.ts). */
      stoppedBy: Stop[];
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
  const judged: Judged = {
    rated,
    codes: reading.codes.codes,
    policyOf: ctx.policyOf,
    sender: reading.sender,
  };
  // A reversal is the bank's own refund, and deposits are in lira: neither is proven for anyone.
  if (line.reversal === true)
    return suggest(line, judged, "a reversal is money coming back, not a payment", [{ code: "reversal" }]);
  if (line.currency !== "TRY")
    return suggest(line, judged, `the line is in ${line.currency}, deposits in TRY`, [
      { code: "other_currency" },
    ]);
  const proven = rated.filter(({ c, e }) =>
    isProven(c, e, rated, reading.codes.codes, ctx.policyOf(c.firmId)),
  );
  if (proven.length === 1) {
    const [{ c, e }] = proven as [(typeof proven)[number]];
    // A name proves a payer only against every deposit the line could be for; a code, alone.
    const held = ctx.approvalsHeld ?? (crowded && e.code !== "exact" ? CROWDED_BY_LINE : null);
    if (held) {
      const stop: Stop = {
        code: held.code === "crowded" ? "held_crowded" : "held_unbalanced",
        depositId: c.id,
      };
      const suggested = suggest(line, judged, held.why, [stop]);
      if (suggested.kind !== "suggest") return suggested;
      return { ...suggested, held: { code: held.code, differenceMinor: held.differenceMinor } };
    }
    if (ctx.policyOf(c.firmId).autoApprove)
      return { kind: "approve", depositId: c.id, proof: e.code === "exact" ? "code" : "name", evidence: e };
    return suggest(line, judged, "the firm approves by hand", [
      { code: "firm_approves_by_hand", depositId: c.id },
    ]);
  }
  const decided = pointsAtDecided(rated, crowded);
  if (decided) return decided;
  if (proven.length > 1)
    return suggest(line, judged, "more than one deposit is proven", [
      { code: "more_than_one_proven", ...othersOf(proven) },
    ]);
  return suggest(line, judged, "no deposit is proven");
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

/** A candidate with its evidence; `cutFitsOthers` when a cut name fits another payer too. */
type Rated = { c: DepositCandidate; e: Evidence; cutFitsOthers?: true };

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
    if (!another) continue;
    r.e = { ...r.e, name: "partial" };
    r.cutFitsOthers = true;
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

/** What the rule judged a line's candidates by, for the reasons beside its suggestions. */
interface Judged {
  rated: readonly Rated[];
  /** The valid codes the description names. */
  codes: readonly string[];
  policyOf(firmId: number): MatchPolicy;
  sender: SenderName | null;
}

function suggest(line: StatementLine, judged: Judged, why: string, stops: Stop[] = []): MatchOutcome {
  const chosen = judged.rated
    .filter(({ c }) => c.status === "pending" && !c.settled)
    .map((r) => ({ r, score: scoreOf(r.e, line, r.c) }))
    .filter((s) => s.score > 0)
    // The strongest first; of equals, the deposit made last before the payment.
    .sort((a, b) => b.score - a.score || b.r.c.createdAt - a.r.c.createdAt)
    .slice(0, MAX_SUGGESTIONS);
  if (chosen.length === 0)
    return { kind: "unmatched", why: "no pending deposit of this account matches the line" };
  return {
    kind: "suggest",
    suggestions: chosen.map(({ r, score }) => ({ depositId: r.c.id, score, evidence: r.e })),
    why,
    stoppedBy: [...stops, ...chosen.flatMap(({ r }) => stopsOf(r, judged))],
  };
}

/**
 * Why a suggested deposit is not proven, isProven's tests in its order (and named by value): none
 * for a proven one, which only the line's reasons stopped. A wrong amount says all; otherwise each
 * of the rest that failed, the deposits that stood in the way named.
 */
function stopsOf(r: Rated, judged: Judged): Stop[] {
  const { c, e } = r;
  const { rated, codes } = judged;
  if (isProven(c, e, rated, codes, judged.policyOf(c.firmId))) return [];
  if (e.amount !== "exact") return [{ code: "amount_differs", depositId: c.id }];
  // A code with the exact amount proves by itself: from here on the deposit's code is not in the line.
  const stops: Stop[] = [];
  const about = (code: StopCode, others?: readonly Rated[]) =>
    stops.push({ code, depositId: c.id, ...(others && othersOf(others)) });
  if (e.code === "near") about("code_near");
  if (r.cutFitsOthers && judged.sender)
    about("cut_name_fits_others", otherPayersFitting(judged.sender, c, rated));
  else if (e.name !== "full") about("name_differs");
  else if (!judged.policyOf(c.firmId).nameMayApprove) about("name_may_not_approve");
  if (codes.some((code) => code !== c.paymentCode)) about("other_code");
  const sameAmount = rated.filter(({ c: o }) => o.id !== c.id && o.amountMinor === c.amountMinor);
  const pending = sameAmount.filter(({ c: o }) => o.status === "pending");
  const decided = sameAmount.filter(
    ({ c: o, e: seen }) => o.status !== "pending" && !o.settled && seen.name !== "none",
  );
  if (pending.length > 0) about("same_amount_pending", pending);
  if (decided.length > 0) about("same_amount_decided", decided);
  return stops;
}

/** The candidates of another name than `c`'s payer's that a cut sender name fits (provedByCutNameAlone). */
function otherPayersFitting(sender: SenderName, c: DepositCandidate, rated: readonly Rated[]): Rated[] {
  const key = nameKey(c.payer);
  return rated.filter(({ c: o }) => nameKey(o.payer) !== key && nameFits(sender, o.payer));
}

/**
 * Deposits named in a reason, the newest (by id) first whichever order the rule met them in, and at
 * most a few: the reasons are stored with every suggested line, and a line may meet a hundred
 * deposits of its amount (LINE_BUDGET), so beyond those named only their number is kept.
 */
function othersOf(rated: readonly Rated[]): Pick<Stop, "others" | "othersCount"> {
  const others = rated
    .map(({ c }) => ({ id: c.id, status: c.status }))
    .sort((a, b) => b.id - a.id)
    .slice(0, NAMED_IN_A_REASON);
  return rated.length > others.length ? { others, othersCount: rated.length } : { others };
}
