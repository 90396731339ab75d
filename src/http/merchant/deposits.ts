import type { FastifyInstance } from "fastify";
import { createDeposit } from "../../domain/intake.js";
import { parseDepositRequest } from "../../domain/requests.js";
import type { AppContext } from "../context.js";
import { sendError, sendPlainJson } from "../envelope.js";
import { admit } from "./admission.js";
import { REJECTIONS, rejectionStatus } from "./rejections.js";

export const DEPOSIT_RECEIVED_MESSAGE = "Yatırım talebiniz alındı";

export function registerDepositRoute(app: FastifyInstance, ctx: AppContext): void {
  app.post("/paymentapi/v1/deposits", async (request, reply) => {
    const admitted = await admit(ctx, request, reply, parseDepositRequest, (req) =>
      // Hosted mode makes no business checks at creation: no facts to read.
      req.redirect || req.amountMinor === null
        ? null
        : { reference: req.reference, userId: req.userId, type: "deposit" },
    );
    if (!admitted) return reply;
    const { firm, callbackUrl, request: req } = admitted;

    if (req.redirect || req.amountMinor === null) {
      return sendError(reply, 501, "Hosted payment pages are not available yet");
    }

    const outcome = await createDeposit(
      ctx.intake,
      firm,
      { ...req, amountMinor: req.amountMinor },
      callbackUrl,
      admitted.facts,
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
