import { z } from "zod";
import { limitText } from "../../backoffice/http/management-schemas.js";
import { idText, plainText } from "../../http/operator-fields.js";
import type { StatementLineState } from "../../store/schema.js";
import { isRealDay } from "../typed-lines.js";

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
  sender_name: plainText(140).nullable().optional(),
  sender_iban: plainText(42).nullable().optional(),
  description: plainText(500).optional(),
  bank_ref: plainText(64).nullable().optional(),
});

/** The feed takes one line, or up to 1,000 in `lines`; `{"lines": []}` says only that it lives. */
export const FEED_MAX_LINES = 1_000;
export const feedBody = z.union([
  z.strictObject({ lines: z.array(typedLine).max(FEED_MAX_LINES) }),
  typedLine,
]);

export const approveBody = z.strictObject({ transaction_id: z.number().int().positive() });
export const notOursBody = z.strictObject({ note: plainText(500).optional() });
export const feedSecretBody = z.strictObject({
  silence_minutes: z.number().int().min(1).max(10_080).optional(),
});
