/**
 * Test helpers for sandbox firms, signed like every merchant request: decide one's own pending
 * transaction as an operator would, and have its callback sent again. A live firm gets the same
 * 404 as an unknown path: the helpers do not exist for it. Recorded as `sandbox:firm-<id>`.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { z } from "zod";
import type { Backoffice } from "../../backoffice/operator-services.js";
import { parseJsonBody } from "../../http/body.js";
import { sendJson } from "../../http/envelope.js";
import { note } from "../../http/operator-fields.js";
import { amountMinor as parseAmountText } from "../requests.js";
import { authenticate } from "./authenticate.js";
import type { IntakeContext } from "./context.js";
import { MERCHANT_PATHS } from "./paths.js";
import { sendMerchantRefusal, sendRefusalInContract } from "./rejection-responses.js";

const approveBody = z.strictObject({ amount: z.string().optional() }).optional();
// The operators' note rule (trimmed, at most 500, no control characters): PostgreSQL text cannot
// hold NUL, so a plain string here would be a 500 there and stored on SQLite.
const rejectBody = z.strictObject({ note: note.optional() }).optional();

export function registerSandboxRoutes(
  app: FastifyInstance,
  ctx: IntakeContext,
  backoffice: Backoffice,
): void {
  /** The calling sandbox firm's transaction id; undefined after answering. */
  async function own(request: FastifyRequest<{ Params: { id: string } }>, reply: FastifyReply) {
    const firm = await authenticate(ctx, request, reply);
    if (!firm) return undefined;
    if (!firm.sandbox) return void sendMerchantRefusal(reply, "not_found");
    const id = Number(request.params.id);
    const tx = /^\d{1,15}$/.test(request.params.id)
      ? await ctx.repos.transactions.findForFirm(firm.id, id)
      : undefined;
    if (!tx) return void sendMerchantRefusal(reply, "transaction_not_found");
    return { firm, tx };
  }
  /** An empty body counts as `{}`; anything else must be the helper's JSON object. */
  function body<T extends z.ZodType>(schema: T, request: FastifyRequest) {
    const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
    if (raw.length === 0) return { ok: true as const, value: undefined };
    const json = parseJsonBody(request);
    const parsed = json.ok ? schema.safeParse(json.value) : undefined;
    return parsed?.success
      ? { ok: true as const, value: parsed.data as z.output<T> }
      : { ok: false as const, issue: parsed?.error.issues[0] };
  }

  app.post<{ Params: { id: string } }>(MERCHANT_PATHS.sandboxApprove, async (request, reply) => {
    const found = await own(request, reply);
    if (!found) return reply;
    const input = body(approveBody, request);
    if (!input.ok) return sendMerchantRefusal(reply, "sandbox_approve_body");
    let amountMinor: number | undefined;
    if (input.value?.amount !== undefined) {
      // The API's own amount rules and messages (at most 2 decimals, greater than 0, …).
      const parsed = parseAmountText(input.value.amount);
      if (!parsed.ok) return sendMerchantRefusal(reply, "invalid_request", parsed.message);
      amountMinor = parsed.value;
    }
    const outcome = await backoffice.decide(
      found.tx.id,
      // A test firm's own rehearsal of any outcome, a payer's overpayment too.
      { kind: "approve", amountMinor, by: { kind: "sandbox" } },
      `sandbox:firm-${found.firm.id}`,
      "sandbox",
    );
    return decided(reply, outcome);
  });

  app.post<{ Params: { id: string } }>(MERCHANT_PATHS.sandboxReject, async (request, reply) => {
    const found = await own(request, reply);
    if (!found) return reply;
    const input = body(rejectBody, request);
    // A note that is text but breaks the rule is told the rule; any other body, the body's shape.
    if (!input.ok && input.issue?.path[0] === "note" && input.issue.code !== "invalid_type")
      return sendMerchantRefusal(reply, "sandbox_note");
    if (!input.ok) return sendMerchantRefusal(reply, "sandbox_reject_body");
    const outcome = await backoffice.decide(
      found.tx.id,
      { kind: "reject", note: input.value?.note },
      `sandbox:firm-${found.firm.id}`,
      "sandbox",
    );
    return decided(reply, outcome);
  });

  app.post<{ Params: { id: string } }>(MERCHANT_PATHS.sandboxCallback, async (request, reply) => {
    const found = await own(request, reply);
    if (!found) return reply;
    const [callback] = await ctx.repos.callbacks.list({ transactionId: found.tx.id });
    if (!callback) return sendMerchantRefusal(reply, "no_callback_yet");
    const outcome = await backoffice.redeliver(callback.id, `sandbox:firm-${found.firm.id}`);
    if (!outcome.ok) return sendRefusalInContract(reply, outcome);
    return sendJson(reply, 200, { success: true, message: "callback queued", callback_id: callback.id });
  });
}

function decided(reply: FastifyReply, outcome: Awaited<ReturnType<Backoffice["decide"]>>): FastifyReply {
  if (!outcome.ok) return sendRefusalInContract(reply, outcome);
  const tx = outcome.value.transaction;
  return sendJson(reply, 200, {
    success: true,
    status: tx.status,
    amount: tx.amount,
    callback_id: outcome.value.callback_id,
  });
}
