import type { FastifyInstance } from "fastify";
import { createWithdrawal } from "../../domain/intake.js";
import { parseWithdrawalRequest } from "../../domain/requests.js";
import type { AppContext } from "../context.js";
import { sendError, sendPlainJson } from "../envelope.js";
import { admit } from "./admission.js";
import { MERCHANT_PATHS } from "./paths.js";
import { REJECTIONS, rejectionStatus } from "./rejections.js";

export const WITHDRAWAL_RECEIVED_MESSAGE = "Çekim talebiniz alındı";

export function registerWithdrawalRoute(app: FastifyInstance, ctx: AppContext): void {
  app.post(MERCHANT_PATHS.withdrawals, async (request, reply) => {
    const admitted = await admit(ctx, request, reply, parseWithdrawalRequest, (req) => ({
      reference: req.reference,
      userId: req.userId,
      type: "withdrawal",
    }));
    if (!admitted) return reply;
    const { firm } = admitted;

    const outcome = await createWithdrawal(
      ctx.intake,
      firm,
      admitted.request,
      admitted.callbackUrl,
      admitted.facts,
    );
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
