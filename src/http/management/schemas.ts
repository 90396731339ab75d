import { z } from "zod";
import { parseAmount } from "../../domain/money.js";

/** Request shapes of the operator API. Amounts are decimal strings, stored as minor units. */
const amount = z
  .string()
  .transform((v, ctx) => {
    const parsed = parseAmount(v);
    if (!parsed.ok) {
      ctx.addIssue({
        code: "custom",
        message: "must be a decimal amount greater than 0 with at most 2 decimals",
      });
      return z.NEVER;
    }
    return parsed.minor;
  })
  .nullable();

const httpUrl = z
  .string()
  .max(500)
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

const noControl = (v: string) => !/[\u0000-\u001F\u007F]/.test(v);
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

export const firmCreate = z.strictObject({
  name,
  provider_id: z.number().int().positive().nullable().default(null),
  webhook_url: httpUrl.default(null),
  legacy_http: z.boolean().default(false),
  callback_middle_name: z.boolean().default(false),
  deposit_min: amount.default(null),
  deposit_max: amount.default(null),
  rate_limit_per_second: z.number().int().min(1).max(1_000_000).default(100),
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
});

export const accountCreate = z.strictObject({
  bank_name: name,
  holder_name: name,
  iban: z
    .string()
    .trim()
    .min(1)
    .max(64)
    .refine(noControl, { message: "must not contain control characters" }),
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
  user_id: z.string().min(1).max(50).refine(noControl, { message: "must not contain control characters" }),
});

export const txListQuery = z.object({
  firm: z.coerce.number().int().positive().optional(),
  status: z.enum(["pending", "approved", "rejected"]).optional(),
  limit: z.coerce.number().int().min(1).max(1000).optional(),
});

export const idParam = z.object({ id: z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER) });

const note = z.string().trim().max(500).refine(noControl, { message: "must not contain control characters" });
const actor = z
  .string()
  .trim()
  .min(1)
  .max(100)
  .refine(noControl, { message: "must not contain control characters" });

export const approveBody = z.strictObject({
  actor,
  note: note.optional(),
  /** The amount the payer actually sent, when it differs from the one asked for. */
  amount: amount.unwrap().optional(),
});

export const rejectBody = z.strictObject({ actor, note: note.optional() });

export const callbackListQuery = z.strictObject({
  status: z.enum(["pending", "delivered", "failed"]).optional(),
  firm: z.coerce.number().int().positive().optional(),
  limit: z.coerce.number().int().min(1).max(1000).optional(),
});

/** An ISO 8601 time or epoch milliseconds. */
export const redeliverFailedBody = z.strictObject({
  failed_since: z.union([z.number().int().min(0), z.string()]).transform((v, ctx) => {
    const ms = typeof v === "number" ? v : Date.parse(v);
    if (Number.isNaN(ms)) {
      ctx.addIssue({ code: "custom", message: "must be an ISO 8601 time or epoch milliseconds" });
      return z.NEVER;
    }
    return ms;
  }),
});

export const operatorUpdate = z.strictObject({
  role: z.enum(["admin", "operator", "viewer"]).optional(),
  active: z.boolean().optional(),
  unlock: z.literal(true).optional(),
});

const isoTime = z.iso.datetime({ offset: true });
export const auditQuery = z.strictObject({
  actor: z.string().trim().min(1).max(200).optional(),
  action: z.string().trim().min(1).max(50).optional(),
  entity_type: z.string().trim().min(1).max(50).optional(),
  entity_id: z.string().trim().min(1).max(100).optional(),
  from: isoTime.optional(),
  to: isoTime.optional(),
  limit: z.coerce.number().int().min(1).max(1000).optional(),
});

export const operatorCreate = z.strictObject({
  email: z.string().trim().toLowerCase().email().max(200),
  role: z.enum(["admin", "operator", "viewer"]),
  /** Optional: without it a one-time password is generated and shown once. */
  password: z.string().min(12).max(200).optional(),
});
