/**
 * Lines that arrive one by one rather than in a file: the live feed's (feed.ts) and those an
 * operator types from the bank's screen. Matched and written exactly as a file's lines are, so the
 * same entry arriving by any way is one line.
 */
import type { Outcome } from "../domain/refusal.js";
import { notFound } from "../domain/refusal.js";
import { statementText } from "../domain/text-rules.js";
import { turkeyDayStart } from "../domain/turkey-time.js";
import { isRealDay, outsideBookingWindow } from "./booking-dates.js";
import {
  emptyCounts,
  type LineCounts,
  type LineResult,
  lineMatcher,
  type ReconcileDeps,
} from "./line-matcher.js";
import type { HeldApprovals } from "./matching.js";
import type { StatementLine } from "./statement.js";
import { withNarrativeMarks } from "./transfer-texts.js";

export interface RecordedLines extends LineCounts {
  /** Each line sent, in order: its id and state, or that it was known already. */
  results: LineResult[];
}

/** `from`: the live feed, or the operator who typed the lines (who then approves what they prove). */
export async function recordLines(
  deps: ReconcileDeps,
  accountId: number,
  lines: readonly StatementLine[],
  from: "feed" | { typedBy: string },
  /** Why none of them may approve (a feed's batch whose balances do not add up), or null. */
  approvalsHeld: HeldApprovals | null = null,
): Promise<Outcome<RecordedLines>> {
  const accounts = await deps.repos.statements.accountsWithIbanOf(accountId);
  if (!accounts) return notFound("account");
  const counts = emptyCounts();
  const results: LineResult[] = [];
  if (lines.length > 0) {
    const booked = lines.map((l) => l.bookedAt);
    const matcher = lineMatcher(
      deps,
      {
        accountId,
        accountIds: accounts.ids,
        iban: accounts.iban,
        importId: null,
        ...(from === "feed"
          ? { source: "feed" as const }
          : { source: "hand" as const, typedBy: from.typedBy }),
        span: { firstBooked: Math.min(...booked), lastBooked: Math.max(...booked) },
        approvalsHeld,
      },
      counts,
      (result) => results.push(result),
    );
    for (const line of lines) await matcher.line(line);
    await matcher.finish();
  }
  if (counts.approved > counts.settled || counts.payouts_paid > 0) deps.decisionsMade();
  return { ok: true, value: { ...counts, results } };
}

/**
 * A line an operator typed from the bank's screen: matched like any other, and in the audit log with
 * who typed it, since no bank's file stands behind it. A deposit it proves is approved in that
 * operator's name: theirs is the word that the money came.
 */
export async function typeLine(
  deps: ReconcileDeps,
  accountId: number,
  line: StatementLine,
  actor: string,
): Promise<Outcome<RecordedLines>> {
  const recorded = await recordLines(deps, accountId, [line], { typedBy: actor });
  if (!recorded.ok) return recorded;
  const result = recorded.value.results[0];
  if (result && !result.duplicate)
    await deps.repos.audited.event(
      { actor, action: "statement_line.typed", at: deps.now() },
      "statement_line",
      String(result.id),
      null,
      { account_id: accountId, amount: line.amountMinor, direction: line.direction, state: result.state },
    );
  return recorded;
}

/** A line's fields as the feed and the console send them (JSON). */
export interface TypedLine {
  booked_at: string;
  amount: string;
  direction?: "credit" | "debit" | undefined;
  currency?: string | undefined;
  sender_name?: string | null | undefined;
  sender_iban?: string | null | undefined;
  description?: string | undefined;
  bank_ref?: string | null | undefined;
  /** The transfer's EndToEndId (for our payouts, the attempt's payment id). */
  end_to_end_id?: string | null | undefined;
  /** A credit that gives back an earlier payout, with the bank's reason (AC04, its words). */
  is_return?: boolean | undefined;
  return_reason?: string | null | undefined;
  /** A debit that is a bank's charge. */
  fee?: boolean | undefined;
}

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
/** A time must say its zone: a bank's connector in another zone would shift every line. */
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})$/;
const AMOUNT = /^(0|[1-9]\d{0,12})(\.\d{1,2})?$/;
/** How far in the future a booking may be: clocks differ, the bank's never runs a day ahead. */
const FUTURE_TOLERANCE_MS = 10 * 60_000;

/** A typed line checked and read, or why not (the message names the field). */
export function readTypedLine(
  typed: TypedLine,
  now: number,
): { ok: true; line: StatementLine } | { ok: false; message: string } {
  let bookedAt: number;
  let dateOnly = false;
  if (DATE_ONLY.test(typed.booked_at)) {
    bookedAt = turkeyDayStart(typed.booked_at);
    dateOnly = true;
  } else if (DATE_TIME.test(typed.booked_at)) bookedAt = Date.parse(typed.booked_at);
  else
    return {
      ok: false,
      message: "booked_at: a date (2026-11-28) or a time with its zone (2026-11-28T14:05:00+03:00)",
    };
  if (!Number.isFinite(bookedAt) || !isRealDay(typed.booked_at.slice(0, 10)))
    return { ok: false, message: "booked_at: no such date" };
  const outside = outsideBookingWindow(bookedAt, now, FUTURE_TOLERANCE_MS);
  if (outside) return { ok: false, message: `booked_at: ${outside}` };
  const amount = AMOUNT.exec(typed.amount);
  if (!amount) return { ok: false, message: "amount: a positive amount such as 1500.00" };
  const [whole, fraction = ""] = typed.amount.split(".");
  const amountMinor = Number(whole) * 100 + Number(fraction.padEnd(2, "0"));
  if (amountMinor === 0) return { ok: false, message: "amount: must be more than zero" };
  const texts = typedTexts(typed);
  if (!texts.ok) return texts;
  const line: StatementLine = {
    bookedAt,
    dateOnly,
    amountMinor,
    direction: typed.direction ?? "credit",
    currency: typed.currency ?? "TRY",
    ...texts.value,
  };
  const transfer = typedTransfer(typed, line);
  return transfer.ok ? { ok: true, line: transfer.line } : transfer;
}

/**
 * A typed line's EndToEndId, return and charge. What the sender leaves out is read from the
 * narrative as a file's line is (transfer-texts.ts), so a line reads the same whichever way it came;
 * what it says, even `false`, stands.
 */
function typedTransfer(
  typed: TypedLine,
  line: StatementLine,
): { ok: true; line: StatementLine } | { ok: false; message: string } {
  const credit = line.direction === "credit";
  if (typed.is_return === true && !credit)
    return { ok: false, message: "is_return: only a credit gives a payout back" };
  if (typed.fee === true && credit) return { ok: false, message: "fee: only a debit is a bank's charge" };
  if (typed.return_reason != null && typed.is_return !== true)
    return { ok: false, message: "return_reason: only with is_return: true" };
  const id = typed.end_to_end_id == null ? "" : statementText(typed.end_to_end_id);
  const reason = typed.return_reason == null ? "" : statementText(typed.return_reason);
  if (id === undefined) return { ok: false, message: "end_to_end_id: must not contain control characters" };
  if (reason === undefined)
    return { ok: false, message: "return_reason: must not contain control characters" };
  const marked = withNarrativeMarks(line);
  const returnInfo =
    typed.is_return === undefined ? marked.returnInfo : typed.is_return ? { reason: reason || null } : null;
  const fee = typed.fee ?? marked.fee === true;
  return {
    ok: true,
    line: {
      ...line,
      ...(id !== "" && id !== "NOTPROVIDED" ? { endToEndId: id } : {}),
      ...(returnInfo ? { returnInfo } : {}),
      ...(fee ? { fee: true } : {}),
    },
  };
}

type TextFields = Pick<StatementLine, "senderName" | "senderIban" | "description" | "bankRef">;

/** A typed line's texts under the rule every door shares (text-rules.ts, statementText). */
function typedTexts(typed: TypedLine): { ok: true; value: TextFields } | { ok: false; message: string } {
  const fields = {
    sender_name: typed.sender_name,
    sender_iban: typed.sender_iban,
    description: typed.description,
    bank_ref: typed.bank_ref,
  };
  const read: Record<string, string | null> = {};
  for (const [name, value] of Object.entries(fields)) {
    const text = value === undefined || value === null ? "" : statementText(value);
    if (text === undefined) return { ok: false, message: `${name}: must not contain control characters` };
    read[name] = text === "" ? null : text;
  }
  return {
    ok: true,
    value: {
      senderName: read.sender_name ?? null,
      senderIban: read.sender_iban ?? null,
      description: read.description ?? "",
      bankRef: read.bank_ref ?? null,
    },
  };
}

/** Every line read, or the first fault, named by its place in the list. */
export function readTypedLines(
  typed: readonly TypedLine[],
  now: number,
): { ok: true; lines: StatementLine[] } | { ok: false; message: string } {
  const lines: StatementLine[] = [];
  for (const [i, t] of typed.entries()) {
    const read = readTypedLine(t, now);
    if (!read.ok)
      return { ok: false, message: typed.length === 1 ? read.message : `lines[${i}].${read.message}` };
    lines.push(read.line);
  }
  return { ok: true, lines };
}
