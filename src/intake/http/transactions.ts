import type { FastifyInstance } from "fastify";
import type { PaymentCodes } from "../../domain/payment-code.js";
import { transactionView } from "../../domain/transaction-view.js";
import { sendJson } from "../../http/envelope.js";
import type { TransactionRow } from "../../store/transactions/transactions.js";
import { couldBeReference } from "../fields.js";
import { authenticate } from "./authenticate.js";
import type { IntakeContext } from "./context.js";
import { MERCHANT_PATHS } from "./paths.js";
import { sendMerchantRefusal } from "./rejection-responses.js";

const INTEGER = /^-?\d+$/;

function found(row: TransactionRow, firm: { answerPaymentCode: boolean }, codes: PaymentCodes) {
  const data = transactionView(row);
  // Only for a firm that asked (docs/reconciliation.md): the contract's view stays as it is.
  if (firm.answerPaymentCode && row.type === "deposit") data.payment_code = codes.of(row.id);
  return { success: true, status: row.status, data };
}

/** Queries see only the calling firm's transactions; another firm's id is "not found", never 403. */
export function registerTransactionRoutes(app: FastifyInstance, ctx: IntakeContext): void {
  app.get<{ Params: { reference: string } }>(MERCHANT_PATHS.byReference, async (request, reply) => {
    const firm = await authenticate(ctx, request, reply);
    if (!firm) return reply;
    const reference = request.params.reference;
    const row = couldBeReference(reference)
      ? await ctx.repos.transactions.findByReference(firm.id, reference)
      : undefined;
    if (!row) return sendMerchantRefusal(reply, "transaction_not_found");
    return sendJson(reply, 200, found(row, firm, ctx.paymentCodes));
  });

  app.get<{ Params: { id: string } }>(MERCHANT_PATHS.byId, async (request, reply) => {
    const firm = await authenticate(ctx, request, reply);
    if (!firm) return reply;
    const raw = request.params.id;
    if (!INTEGER.test(raw)) return sendMerchantRefusal(reply, "invalid_id");
    const id = Number(raw);
    const row =
      Number.isSafeInteger(id) && id > 0 ? await ctx.repos.transactions.findForFirm(firm.id, id) : undefined;
    if (!row) return sendMerchantRefusal(reply, "transaction_not_found");
    return sendJson(reply, 200, found(row, firm, ctx.paymentCodes));
  });
}
