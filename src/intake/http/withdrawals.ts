import type { FastifyInstance } from "fastify";
import { sendError, sendPlainJson } from "../../http/envelope.js";
import { createWithdrawal } from "../intake.js";
import { parseWithdrawalRequest } from "../requests.js";
import { admit, tellIgnoredFields } from "./admission.js";
import type { IntakeContext } from "./context.js";
import { MERCHANT_PATHS } from "./paths.js";
import { REJECTIONS, rejectionStatus } from "./rejection-responses.js";

export const WITHDRAWAL_RECEIVED_MESSAGE = "Çekim talebiniz alındı";

export function registerWithdrawalRoute(app: FastifyInstance, ctx: IntakeContext): void {
  app.post(MERCHANT_PATHS.withdrawals, async (request, reply) => {
    const admitted = await admit(ctx, request, reply, parseWithdrawalRequest, (req) => ({
      reference: req.reference,
      userId: req.userId,
      type: "withdrawal",
    }));
    if (!admitted) return reply;
    const { firm } = admitted;
    tellIgnoredFields(reply, firm, admitted.request);

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
