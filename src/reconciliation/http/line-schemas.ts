import { z } from "zod";
import { idText, limitText, plainText } from "../../http/operator-fields.js";
import { parse } from "../../http/operator-io.js";
import type { StatementLineState } from "../../store/schema.js";
import { isRealDay } from "../booking-dates.js";

/** `state=matched` is the lines that approved their deposit or found it approved. */
export const STATES: Record<string, StatementLineState[]> = {
  open: ["suggested", "unmatched", "after_cancellation"],
  matched: ["approved", "settled"],
  suggested: ["suggested"],
  unmatched: ["unmatched"],
  after_cancellation: ["after_cancellation"],
  debit: ["debit"],
  not_ours: ["not_ours"],
};

const DAY = /^\d{4}-\d{2}-\d{2}$/;

export const listQuery = z.strictObject({
  account: idText.optional(),
  state: z.enum(Object.keys(STATES) as [string, ...string[]]).optional(),
  /** The booking day in Türkiye (YYYY-MM-DD). */
  day: z
    .string()
    .regex(DAY, { message: "a day as YYYY-MM-DD" })
    .refine(isRealDay, { message: "no such day" })
    .optional(),
  before: idText.optional(),
  limit: limitText.optional(),
});

/** A line as the feed sends it and as an operator types it (reconciliation/typed-lines.ts reads it). */
export const typedLine = z.strictObject({
  booked_at: z.string().max(40),
  amount: z.string().max(20),
  direction: z.enum(["credit", "debit"]).optional(),
  currency: z
    .string()
    .regex(/^[A-Z]{3}$/, { message: "a three-letter code such as TRY" })
    .optional(),
  // A bank's texts: control characters are refused and layout marks dropped by the rule every door
  // shares (typed-lines.ts), not here, so that a line reads the same whichever way it came.
  sender_name: z.string().max(140).nullable().optional(),
  sender_iban: z.string().max(42).nullable().optional(),
  description: z.string().max(500).optional(),
  bank_ref: z.string().max(64).nullable().optional(),
  // What a debit or a return says of a payout (docs/reconciliation.md, "Debits and payouts").
  end_to_end_id: z.string().max(35).nullable().optional(),
  is_return: z.boolean().optional(),
  return_reason: z.string().max(140).nullable().optional(),
  fee: z.boolean().optional(),
});

/** A balance as the feed sends it: signed, two decimals at most ("-12.50", "1500.00"). */
const balanceText = z
  .string()
  .regex(/^-?(0|[1-9]\d{0,14})(\.\d{1,2})?$/, { message: "a balance such as 1500.00 or -12.50" });

/**
 * The feed takes one line, or up to 1,000 in `lines`; `{"lines": []}` says only that it lives. A
 * batch may carry the account's balance before and after its lines: then they must add up, or
 * none of them approves (docs/reconciliation.md, "The balance rule").
 */
export const FEED_MAX_LINES = 1_000;
const feedBatch = z.strictObject({
  lines: z.array(typedLine).max(FEED_MAX_LINES, { message: `at most ${FEED_MAX_LINES} lines a request` }),
  opening_balance: balanceText.optional(),
  closing_balance: balanceText.optional(),
});
export type FeedBatch = z.output<typeof feedBatch>;

/** A batch, or a single line as a batch of one: each named in its own terms when refused. */
export function feedBodyOf(value: unknown): { ok: true; value: FeedBatch } | { ok: false; message: string } {
  const batch = typeof value === "object" && value !== null && "lines" in value;
  const read = batch ? parse(feedBatch, value) : parse(typedLine, value);
  if (!read.ok) return read;
  const body = "lines" in read.value ? read.value : { lines: [read.value] };
  if ((body.opening_balance === undefined) !== (body.closing_balance === undefined))
    return { ok: false, message: "opening_balance and closing_balance come together, or neither" };
  return { ok: true, value: body };
}

export const approveBody = z.strictObject({ transaction_id: z.number().int().positive() });
export const notOursBody = z.strictObject({ note: plainText(500).optional() });
/** The credit marked not ours that the debit in the path paid back. */
export const refundBody = z.strictObject({
  of: z.number().int().positive(),
  note: plainText(500).optional(),
});
export const feedSecretBody = z.strictObject({
  silence_minutes: z.number().int().min(1).max(10_080).optional(),
});
