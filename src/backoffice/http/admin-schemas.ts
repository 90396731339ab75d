/**
 * Request shapes of the admin API's own routes (admin-routes.ts): transactions, decisions,
 * operators and callbacks. Its management routes' are management's (management/http/schemas.ts).
 */
import { z } from "zod";
import { amountText, idText, limitText, NO_CONTROL, noControl, note } from "../../http/operator-fields.js";

const isoTime = z.iso.datetime({ offset: true });

export const txListQuery = z.strictObject({
  firm: idText.optional(),
  status: z.enum(["pending", "approved", "rejected"]).optional(),
  limit: limitText.optional(),
});

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
  amount: amountText.optional(),
});

export const rejectBody = z.strictObject({ actor, note: note.optional() });

export const callbackListQuery = z.strictObject({
  status: z.enum(["pending", "delivered", "failed"]).optional(),
  firm: idText.optional(),
  limit: limitText.optional(),
});

/**
 * An ISO 8601 time with its offset, or epoch milliseconds (a number, or digits as the CLI sends
 * them). Nothing looser: `Date.parse("1")` is a time in 2001, and "redeliver everything failed
 * since 2001" is not what anyone typed.
 */
export const redeliverFailedBody = z.strictObject({
  failed_since: z.union([z.number().int().min(0), z.string()]).transform((v, ctx) => {
    const ms =
      typeof v === "number"
        ? v
        : /^[0-9]{1,16}$/.test(v)
          ? Number(v)
          : isoTime.safeParse(v).success
            ? Date.parse(v)
            : Number.NaN;
    if (!Number.isSafeInteger(ms)) {
      ctx.addIssue({ code: "custom", message: "must be an ISO 8601 time or epoch milliseconds" });
      return z.NEVER;
    }
    return ms;
  }),
});

export const operatorEmail = z.strictObject({
  email: z.string().trim().min(3).max(200).refine(noControl, NO_CONTROL),
});
