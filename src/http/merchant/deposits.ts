import type { FastifyInstance } from "fastify";
import { createDeposit } from "../../domain/intake.js";
import { parseDepositRequest } from "../../domain/requests.js";
import type { AppContext } from "../context.js";
import { sendError, sendPlainJson } from "../envelope.js";
import { authenticate } from "./authenticate.js";
import { callbackUrlFor, INVALID_JSON_MESSAGE, parseJsonBody } from "./common.js";
import { REJECTIONS, rejectionStatus } from "./rejections.js";

export const DEPOSIT_RECEIVED_MESSAGE = "Yatırım talebiniz alındı";

export function registerDepositRoute(app: FastifyInstance, ctx: AppContext): void {
  app.post("/paymentapi/v1/deposits", async (request, reply) => {
    const firm = await authenticate(ctx, request, reply);
    if (!firm) return reply;
    const callbackUrl = await callbackUrlFor(ctx, firm, request, reply);
    if (callbackUrl === undefined) return reply;
    const body = parseJsonBody(request);
    if (!body.ok) return sendError(reply, 400, INVALID_JSON_MESSAGE);
    const parsed = parseDepositRequest(body.value);
    if (!parsed.ok) return sendError(reply, 400, parsed.message);
    const req = parsed.value;

    if (req.redirect || req.amountMinor === null) {
      return sendError(reply, 501, "Hosted payment pages are not available yet");
    }

    const outcome = await createDeposit(
      ctx.intake,
      firm,
      { ...req, amountMinor: req.amountMinor },
      callbackUrl,
    );
    if (!outcome.ok) {
      return sendError(
        reply,
        rejectionStatus(outcome.rejection, firm.legacyHttp),
        REJECTIONS[outcome.rejection].message,
      );
    }
    return sendPlainJson(reply, 200, {
      success: true,
      message: DEPOSIT_RECEIVED_MESSAGE,
      assigned_bank_name: outcome.account.bankName,
      assigned_holder_name: outcome.account.holderName,
      assigned_iban: outcome.account.iban,
    });
  });
}
