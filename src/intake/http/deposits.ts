import type { FastifyInstance } from "fastify";
import { sendError, sendPlainJson } from "../../http/envelope.js";
import { createDeposit } from "../intake.js";
import { type DepositRequest, parseDepositRequest } from "../requests.js";
import { admit, tellIgnoredFields } from "./admission.js";
import type { IntakeContext } from "./context.js";
import { MERCHANT_PATHS } from "./paths.js";
import { REJECTIONS, rejectionStatus } from "./rejection-responses.js";

export const DEPOSIT_RECEIVED_MESSAGE = "Yatırım talebiniz alındı";
/** The redirect-required text of a hosted-mode answer (docs/errors.md). */
export const HOSTED_MESSAGE = "Ödeme sayfasına yönlendiriniz";

/** Direct mode: an amount, no redirect (the parser allows no other mix). */
function isDirect(req: DepositRequest): req is DepositRequest & { amountMinor: number } {
  return !req.redirect && req.amountMinor !== null;
}

export function registerDepositRoute(app: FastifyInstance, ctx: IntakeContext): void {
  app.post(MERCHANT_PATHS.deposits, async (request, reply) => {
    const admitted = await admit(ctx, request, reply, parseDepositRequest, (req) =>
      // Hosted mode makes no business checks at creation: no facts to read.
      req.redirect || req.amountMinor === null
        ? null
        : { reference: req.reference, userId: req.userId, type: "deposit" },
    );
    if (!admitted) return reply;
    const { firm, callbackUrl, request: req } = admitted;
    tellIgnoredFields(reply, firm, req);

    if (!isDirect(req)) {
      const { token } = await ctx.hosted.open(firm, req, callbackUrl);
      ctx.metrics.deposits.inc({ outcome: "hosted" });
      return sendPlainJson(reply, 200, {
        success: true,
        message: HOSTED_MESSAGE,
        payment_url: `${ctx.config.paymentPageUrl ?? ""}/t/${token}`,
      });
    }

    const outcome = await createDeposit(ctx.intake, firm, req, callbackUrl, admitted.facts);
    ctx.metrics.deposits.inc({ outcome: outcome.ok ? "created" : outcome.rejection });
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
      // Only for a firm that asked (docs/reconciliation.md): the contract's answer stays as it is.
      ...(firm.answerPaymentCode ? { payment_code: ctx.paymentCodes.of(outcome.id) } : {}),
    });
  });
}
