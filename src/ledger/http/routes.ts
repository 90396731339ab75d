/**
 * The ledger's read routes for operators (docs/ledger.md, "Reports"): thin, the figures are the
 * service's (ledger/service.ts). Mounted by the admin API under its token.
 */
import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { answer, read, readId } from "../../http/operator-io.js";
import type { LedgerService } from "../service.js";

const balanceQuery = z.strictObject({ at: z.iso.datetime({ offset: true }).optional() });

export function registerLedgerRoutes(app: FastifyInstance, prefix: string, ledger: LedgerService) {
  app.get(`${prefix}/ledger/firms/:id/balance`, async (request, reply) => {
    const id = readId(reply, request.params);
    if (id === undefined) return reply;
    const q = read(reply, balanceQuery, request.query);
    if (!q) return reply;
    return answer(reply, await ledger.firmBalance(id, q.at === undefined ? undefined : Date.parse(q.at)));
  });
}
