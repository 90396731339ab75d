/**
 * Request shapes of management's routes (routes.ts), the same under the admin API and the console.
 * Amounts are decimal strings, stored as minor units.
 */
import { z } from "zod";
import { isValidTurkishIban } from "../../domain/iban.js";
import { amountText, limitText, NO_CONTROL, noControl } from "../../http/operator-fields.js";

const amount = amountText.nullable();

/** Stored as typed: the URL parser would take (and encode) a NUL the database then refuses. */
const httpUrl = z
  .string()
  .max(500)
  .refine(noControl, NO_CONTROL)
  .refine(
    (v) => {
      try {
        const u = new URL(v);
        return (u.protocol === "http:" || u.protocol === "https:") && u.hostname !== "";
      } catch {
        return false;
      }
    },
    { message: "must be an absolute http(s) URL" },
  )
  .nullable();

const name = z
  .string()
  .trim()
  .min(1)
  .max(200)
  .refine(noControl, { message: "must not contain control characters" });

/** Channel and bank codes: what merchants send in bank_code (1 to 20 letters, digits, - or _). */
const code = z
  .string()
  .trim()
  .regex(/^[A-Za-z0-9_-]{1,20}$/, { message: "must be 1 to 20 letters, digits, - or _" });

export const providerCreate = z.strictObject({
  name,
  kind: z.enum(["direct", "platform", "aggregator"]).default("direct"),
  callback_url: httpUrl.default(null),
  auto_cancel_minutes: z.number().int().min(0).max(10080).default(0),
});

export const providerUpdate = z.strictObject({
  callback_url: httpUrl.optional(),
  auto_cancel_minutes: z.number().int().min(0).max(10080).optional(),
});

/**
 * A new firm's bounds of pending deposits, as the migration gives existing firms: 1,000 deposits,
 * 2,000,000.00 TL (docs/adr/0013-firm-pending-bounds.md says why).
 */
export const DEFAULT_MAX_PENDING_COUNT = 1000;
export const DEFAULT_MAX_PENDING_AMOUNT = 200_000_000;
const pendingCount = z.number().int().min(1).max(1_000_000).nullable();
/**
 * The shop's name payers see on the payment page; null: the firm's name. Outside text shown to
 * payers, so under the rules of every name an operator types (no control or bidi characters).
 */
const displayName = z
  .string()
  .trim()
  .min(1)
  .max(100)
  .refine(noControl, { message: "must not contain control characters" })
  .nullable();
const capShare = z.number().int().min(1).max(100).nullable();

export const firmCreate = z.strictObject({
  name,
  provider_id: z.number().int().positive().nullable().default(null),
  webhook_url: httpUrl.default(null),
  legacy_http: z.boolean().default(false),
  callback_middle_name: z.boolean().default(false),
  deposit_min: amount.default(null),
  deposit_max: amount.default(null),
  rate_limit_per_second: z.number().int().min(1).max(1_000_000).default(100),
  max_pending_count: pendingCount.default(DEFAULT_MAX_PENDING_COUNT),
  max_pending_amount: amount.default(DEFAULT_MAX_PENDING_AMOUNT),
  max_cap_share: capShare.default(null),
  display_name: displayName.default(null),
  /** Above it the payment page warns of an unusual amount (docs/hosted-page.md); null: by recent deposits. */
  usual_amount_max: amount.default(null),
  /** A test firm (docs/sandbox.md); fixed at creation, a live firm is never turned into one. */
  sandbox: z.boolean().default(false),
});

export const firmUpdate = z.strictObject({
  deposits: z.enum(["open", "closed"]).optional(),
  withdrawals: z.enum(["open", "closed"]).optional(),
  active: z.boolean().optional(),
  webhook_url: httpUrl.optional(),
  legacy_http: z.boolean().optional(),
  callback_middle_name: z.boolean().optional(),
  deposit_min: amount.optional(),
  deposit_max: amount.optional(),
  rate_limit_per_second: z.number().int().min(1).max(1_000_000).optional(),
  /** A bank statement's line may approve the firm's deposits by itself (docs/reconciliation.md). */
  reconcile_auto: z.boolean().optional(),
  /** ... with the amount and the full name, without the payment code. */
  reconcile_by_name: z.boolean().optional(),
  /** Direct-mode answers and queries of deposits add `payment_code`. */
  answer_payment_code: z.boolean().optional(),
  /** Bounds of the firm's pending deposits (docs/operations.md); null: none. */
  max_pending_count: pendingCount.optional(),
  max_pending_amount: amount.optional(),
  /** The most of each capped account's day the firm may take, percent; null: all of it. */
  max_cap_share: capShare.optional(),
  /** The shop's name on the payment page; null: the firm's name. */
  display_name: displayName.optional(),
  /** Above it the payment page warns of an unusual amount; null: judged by recent deposits. */
  usual_amount_max: amount.optional(),
  /** The firm's commission from now on, `PERCENT[+FIXED]` (docs/ledger.md); read by the service. */
  commission_deposit: z.string().max(32).optional(),
  commission_withdrawal: z.string().max(32).optional(),
  /** The least and the most commission on one movement; null: none. Unnamed, kept from the schedule in force. */
  commission_deposit_min: amount.optional(),
  commission_deposit_max: amount.optional(),
  commission_withdrawal_min: amount.optional(),
  commission_withdrawal_max: amount.optional(),
  /** When the commissions set here come into force; now when absent, never in the past. */
  commission_from: z.iso.datetime({ offset: true }).optional(),
  /** How far below zero the firm's balance may go for its payouts (docs/payouts.md); null: not at all. */
  overdraft: amount.optional(),
});

/** The earlier webhook whose callbacks move to the firm's current one. */
export const callbackMove = z.strictObject({ from: z.string().trim().min(1).max(2048) });

export const accountCreate = z.strictObject({
  bank_name: name,
  holder_name: name,
  // Shown to payers, who send money to it: a typo here sends a payer's money astray, so unlike a
  // withdrawal's IBAN (never refused, the contract) it must be a valid Turkish IBAN. Kept as a bank's
  // form takes it, whatever grouping or case it was typed in.
  iban: z
    .string()
    .trim()
    .min(1)
    .max(64)
    .refine(noControl, { message: "must not contain control characters", abort: true })
    .transform((v) => v.replace(/[\s-]+/g, "").toUpperCase())
    .refine(isValidTurkishIban, {
      message: "must be a valid Turkish IBAN: TR and 24 digits, its check digits right",
    }),
  min: amount.default(null),
  max: amount.default(null),
  channel: code.nullable().default(null),
  bank_code: code.nullable().default(null),
  daily_cap: amount.default(null),
});

export const accountUpdate = z.strictObject({
  active: z.boolean().optional(),
  min: amount.optional(),
  max: amount.optional(),
  channel: code.nullable().optional(),
  bank_code: code.nullable().optional(),
  daily_cap: amount.optional(),
});

const timeoutMs = z.number().int().min(100).max(20_000);

export const channelCreate = z.strictObject({
  code,
  kind: z.enum(["manual", "http"]),
  url: httpUrl.default(null),
  timeout_ms: timeoutMs.default(8_000),
});

export const channelUpdate = z.strictObject({
  url: httpUrl.unwrap().optional(),
  timeout_ms: timeoutMs.optional(),
  active: z.boolean().optional(),
});

export const codeParam = z.strictObject({ code });

export const banBody = z.strictObject({
  // Trimmed as merchants' user_id values are compared: a padded ban could never match anyone.
  user_id: z.string().trim().min(1).max(50).refine(noControl, NO_CONTROL),
});

const isoTime = z.iso.datetime({ offset: true });

export const auditQuery = z.strictObject({
  actor: z.string().trim().min(1).max(200).refine(noControl, NO_CONTROL).optional(),
  action: z.string().trim().min(1).max(50).refine(noControl, NO_CONTROL).optional(),
  entity_type: z.string().trim().min(1).max(50).refine(noControl, NO_CONTROL).optional(),
  entity_id: z.string().trim().min(1).max(100).refine(noControl, NO_CONTROL).optional(),
  from: isoTime.optional(),
  to: isoTime.optional(),
  limit: limitText.optional(),
});
