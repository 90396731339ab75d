import type { FastifyInstance } from "fastify";
import { createWithdrawal } from "../../domain/intake.js";
import { parseWithdrawalRequest } from "../../domain/requests.js";
import type { AppContext } from "../context.js";
import { sendError, sendPlainJson } from "../envelope.js";
import { authenticate } from "./authenticate.js";
import { callbackUrlFor, INVALID_JSON_MESSAGE, parseJsonBody } from "./common.js";
import { REJECTIONS, rejectionStatus } from "./rejections.js";

export const WITHDRAWAL_RECEIVED_MESSAGE = "Çekim talebiniz alındı";

export function registerWithdrawalRoute(app: FastifyInstance, ctx: AppContext): void {
  app.post("/paymentapi/v1/withdrawals", async (request, reply) => {
    const firm = await authenticate(ctx, request, reply);
    if (!firm) return reply;
    const callbackUrl = await callbackUrlFor(ctx, firm, request, reply);
    if (callbackUrl === undefined) return reply;
    const body = parseJsonBody(request);
    if (!body.ok) return sendError(reply, 400, INVALID_JSON_MESSAGE);
    const parsed = parseWithdrawalRequest(body.value);
    if (!parsed.ok) return sendError(reply, 400, parsed.message);

    const outcome = await createWithdrawal(ctx.intake, firm, parsed.value, callbackUrl);
    if (!outcome.ok) {
      return sendError(
        reply,
        rejectionStatus(outcome.rejection, firm.legacyHttp),
        REJECTIONS[outcome.rejection].message,
      );
    }
    return sendPlainJson(reply, 200, { success: true, message: WITHDRAWAL_RECEIVED_MESSAGE });
  });
}
