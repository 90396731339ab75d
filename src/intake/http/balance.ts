/**
 * A firm's own ledger figures, signed like every merchant request (docs/api.md, "Balance"): its
 * balance now or as of a moment, and one Türkiye day with its movements, a page at a time. The
 * figures are the operators' (ledger/merchant-balance.ts); a firm sees only its own, the firm
 * being the one that signed. They count against a rate limit of their own, so that a merchant
 * polling its balance never takes a deposit's place in the firm's.
 */
import type { FastifyInstance, FastifyReply } from "fastify";
import { z } from "zod";
import type { Backoffice, Outcome } from "../../backoffice/operator-services.js";
import { sendJson } from "../../http/envelope.js";
import { authenticate, type RateBucket } from "./authenticate.js";
import type { IntakeContext } from "./context.js";
import { MERCHANT_PATHS } from "./paths.js";
import { sendMerchantRefusal, sendRefusalInContract } from "./rejection-responses.js";

/** Requests per second per firm; the burst is twice that (http/rate-limit/). Not the firm's `rate_limit`. */
export const BALANCE_REQUESTS_PER_SECOND = 5;

/** The balance routes' bucket: one per firm, beside the firm's own, which they never touch. */
export const BALANCE_BUCKET: RateBucket = {
  key: (firm) => `balance:${firm.id}`,
  perSecond: () => BALANCE_REQUESTS_PER_SECOND,
};

/** A page of a day's movements: this many unless `limit` says, and at most `max`. */
export const BALANCE_PAGE = { default: 100, max: 500 } as const;

const balanceQuery = z.strictObject({ at: z.iso.datetime({ offset: true }).optional() });
const dayQuery = z.strictObject({
  after: z.string().optional(),
  limit: z
    .string()
    .regex(/^[0-9]{1,4}$/)
    .transform(Number)
    .pipe(z.number().int().min(1).max(BALANCE_PAGE.max))
    .optional(),
});

/** What each query parameter must be, as a refusal says it (after `Validation failed: `). */
export const BALANCE_QUERY_RULES: Record<string, string> = {
  at: "at: a moment in ISO 8601 with its offset, e.g. 2026-12-07T09:30:00+03:00",
  after: "after: not a page's end this report gave",
  limit: `limit: a whole number from 1 to ${BALANCE_PAGE.max}`,
};

/** The query read by its schema, or undefined after answering 400 with the first problem. */
function readQuery<T extends z.ZodType>(
  reply: FastifyReply,
  schema: T,
  query: unknown,
): z.output<T> | undefined {
  const parsed = schema.safeParse(query);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const rule =
    issue?.code === "unrecognized_keys"
      ? `unknown query parameter: ${issue.keys.join(", ")}`
      : (BALANCE_QUERY_RULES[String(issue?.path[0])] ?? "the query is not one this endpoint reads");
  return void sendMerchantRefusal(reply, "invalid_request", `Validation failed: ${rule}`);
}

/** The figures in the contract's success envelope, or the ledger's refusal in its error envelope. */
function answer<T>(reply: FastifyReply, outcome: Outcome<T>): FastifyReply {
  if (outcome.ok) return sendJson(reply, 200, { success: true, data: outcome.value });
  // A bad date, a moment or day still to come, a page's end it never gave: the ledger names the
  // parameter and its rule; said as the contract's validation failures are.
  if (outcome.code === "invalid_input")
    return sendMerchantRefusal(reply, "invalid_request", `Validation failed: ${outcome.message}`);
  return sendRefusalInContract(reply, outcome);
}

export function registerBalanceRoutes(
  app: FastifyInstance,
  ctx: IntakeContext,
  balances: Backoffice["merchantBalances"],
): void {
  app.get(MERCHANT_PATHS.balance, async (request, reply) => {
    const firm = await authenticate(ctx, request, reply, BALANCE_BUCKET);
    if (!firm) return reply;
    const q = readQuery(reply, balanceQuery, request.query);
    if (!q) return reply;
    return answer(reply, await balances.balance(firm.id, q.at === undefined ? undefined : Date.parse(q.at)));
  });

  app.get<{ Params: { date: string } }>(MERCHANT_PATHS.balanceDay, async (request, reply) => {
    const firm = await authenticate(ctx, request, reply, BALANCE_BUCKET);
    if (!firm) return reply;
    const q = readQuery(reply, dayQuery, request.query);
    if (!q) return reply;
    const page = { after: q.after, limit: q.limit ?? BALANCE_PAGE.default };
    return answer(reply, await balances.day(firm.id, request.params.date, page));
  });
}
