/** Request shapes of the payout routes (routes.ts), the same under the admin API and the console. */
import { z } from "zod";
import { amountText, idText, limitText, NO_CONTROL, noControl, note } from "../../http/operator-fields.js";

/** Who acts, as the admin API's caller names them (the CLI's --operator). */
export const actorName = z.string().trim().min(1).max(100).refine(noControl, NO_CONTROL);

export const batchCreate = z.strictObject({
  account: z.number().int().positive(),
  firm: z.number().int().positive().optional(),
  max_count: z.number().int().min(1).max(10_000).optional(),
  actor: actorName.optional(),
});

export const batchMove = z.strictObject({ actor: actorName.optional(), note: note.optional() });

export const batchList = z.strictObject({
  stage: z.enum(["second_approval", "batched", "sent", "closed", "cancelled"]).optional(),
  limit: limitText.optional(),
});

export const waitingQuery = z.strictObject({
  firm: idText.optional(),
  account: idText.optional(),
  limit: limitText.optional(),
});

export const flaggedQuery = z.strictObject({ limit: limitText.optional() });

/** The flag the operator checked (cleared only if it is still that one), and a note. */
export const flagClear = z.strictObject({
  flag: z.string().min(1).max(40).refine(noControl, NO_CONTROL),
  note: note.optional(),
  actor: actorName.optional(),
});

export const fileQuery = z.strictObject({
  format: z.string().min(1).max(60).refine(noControl, NO_CONTROL),
  actor: actorName.optional(),
});

export const scopeQuery = z.strictObject({ firm: idText.optional(), account: idText.optional() });

/** An amount, or "none" for no such rule. */
const ruleAmount = z.union([z.literal("none").transform(() => null), amountText]);

export const settingsBody = z.strictObject({
  firm: z.number().int().positive().optional(),
  account: z.number().int().positive().optional(),
  payouts: z.boolean().optional(),
  two_person_batch_above: ruleAmount.optional(),
  two_person_payout_above: ruleAmount.optional(),
  two_person_day_above: ruleAmount.optional(),
  channel_final_approves: z.boolean().optional(),
  fast_limit: amountText.optional(),
  /** The ledger's guard (docs/payouts.md): the firm's payouts held to its balance. */
  balance_guard: z.boolean().optional(),
  actor: actorName.optional(),
});
