/**
 * The console's "Bakiyeler" under /ops/api/ledger (docs/console.md): every firm's balance, every bank
 * account's last check and its explanation, a firm's days and one day's postings, and both as CSV.
 * Money of every firm and the company's own: admins only (BALANCES_ROLE), let in through the
 * console's door. The figures are the ledger's (service.ts, overview.ts); the admin API reads the
 * same through routes.ts.
 */
import type { FastifyInstance } from "fastify";
import { z } from "zod";
import type { OperatorRole } from "../../domain/actors.js";
import { sendJson } from "../../http/envelope.js";
import type { OperatorDoor } from "../../http/operator-door.js";
import { answer, read, readId } from "../../http/operator-io.js";
import type { LedgerOverview } from "../overview.js";
import type { LedgerService } from "../service.js";
import { answerFirmDay, sendFirmDayCsv } from "./day-handlers.js";
import { csvFormat, sendDaysCsv } from "./report-csv.js";

/** Who sees the balances: they are every firm's money and the company's bank accounts. */
export const BALANCES_ROLE: OperatorRole = "admin";

/** Without `from` or `to`, the last seven Türkiye days to `to` (today by default). */
const daysQuery = z.strictObject({
  from: z.string().max(10).optional(),
  to: z.string().max(10).optional(),
  format: csvFormat,
});

export function registerLedgerConsoleRoutes(
  ops: FastifyInstance,
  services: { ledger: LedgerService; overview: LedgerOverview },
  door: OperatorDoor<unknown>,
) {
  const { ledger, overview } = services;
  const p = "/ops/api/ledger";

  ops.get(`${p}/balances`, async (request, reply) => {
    if (!(await door(request, reply, BALANCES_ROLE))) return reply;
    return sendJson(reply, 200, await overview.firms());
  });

  ops.get(`${p}/bank-accounts`, async (request, reply) => {
    if (!(await door(request, reply, BALANCES_ROLE))) return reply;
    return sendJson(reply, 200, { accounts: await overview.bankAccounts() });
  });

  // The last check of the account's IBAN, with the lines and postings that make its difference up.
  ops.get(`${p}/accounts/:id/check`, async (request, reply) => {
    if (!(await door(request, reply, BALANCES_ROLE))) return reply;
    const id = readId(reply, request.params);
    if (id === undefined) return reply;
    return answer(reply, await ledger.accountCheck(id, undefined));
  });

  ops.get(`${p}/firms/:id/days`, async (request, reply) => {
    if (!(await door(request, reply, BALANCES_ROLE))) return reply;
    const id = readId(reply, request.params);
    if (id === undefined) return reply;
    const q = read(reply, daysQuery, request.query);
    if (!q) return reply;
    return answer(reply, await overview.firmDays(id, q.from, q.to));
  });

  ops.get(`${p}/firms/:id/days.csv`, async (request, reply) => {
    if (!(await door(request, reply, BALANCES_ROLE))) return reply;
    const id = readId(reply, request.params);
    if (id === undefined) return reply;
    const q = read(reply, daysQuery, request.query);
    if (!q) return reply;
    const range = overview.daysRange(q.from, q.to);
    return sendDaysCsv(reply, ledger, { firmId: id, ...range, excel: q.format === "excel" });
  });

  ops.get(`${p}/firms/:id/days/:date`, async (request, reply) => {
    if (!(await door(request, reply, BALANCES_ROLE))) return reply;
    return answerFirmDay(request, reply, ledger);
  });

  ops.get(`${p}/firms/:id/days/:date/postings.csv`, async (request, reply) => {
    if (!(await door(request, reply, BALANCES_ROLE))) return reply;
    return sendFirmDayCsv(request, reply, ledger);
  });
}
