import type { FastifyInstance } from "fastify";
import { couldBeReference } from "../../domain/fields.js";
import { transactionView } from "../../domain/transaction-view.js";
import type { TransactionRow } from "../../store/transactions.js";
import type { AppContext } from "../context.js";
import { sendError, sendJson } from "../envelope.js";
import { authenticate } from "./authenticate.js";
import { MERCHANT_PATHS } from "./paths.js";

const INTEGER = /^-?\d+$/;

function found(row: TransactionRow) {
  return { success: true, status: row.status, data: transactionView(row) };
}

/** Queries see only the calling firm's transactions; another firm's id is "not found", never 403. */
export function registerTransactionRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.get<{ Params: { reference: string } }>(MERCHANT_PATHS.byReference, async (request, reply) => {
    const firm = await authenticate(ctx, request, reply);
    if (!firm) return reply;
    const reference = request.params.reference;
    const row = couldBeReference(reference)
      ? await ctx.repos.transactions.findByReference(firm.id, reference)
      : undefined;
    if (!row) return sendError(reply, 404, "transaction not found");
    return sendJson(reply, 200, found(row));
  });

  app.get<{ Params: { id: string } }>(MERCHANT_PATHS.byId, async (request, reply) => {
    const firm = await authenticate(ctx, request, reply);
    if (!firm) return reply;
    const raw = request.params.id;
    if (!INTEGER.test(raw)) return sendError(reply, 400, "invalid id");
    const id = Number(raw);
    const row =
      Number.isSafeInteger(id) && id > 0 ? await ctx.repos.transactions.findForFirm(firm.id, id) : undefined;
    if (!row) return sendError(reply, 404, "transaction not found");
    return sendJson(reply, 200, found(row));
  });
}
