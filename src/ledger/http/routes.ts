/**
 * The ledger's read routes for operators (docs/ledger.md, "Reports"): thin, the figures are the
 * service's (ledger/service.ts). Mounted by the admin API under its token.
 */
import type { FastifyInstance, FastifyReply } from "fastify";
import { z } from "zod";
import type { Outcome } from "../../domain/refusal.js";
import { answer, read, readBody, readId } from "../../http/operator-io.js";
import type { LedgerService } from "../service.js";
import { answerFirmDay, sendFirmDayCsv } from "./day-handlers.js";
import { csvFormat, sendDaysCsv } from "./report-csv.js";

const balanceQuery = z.strictObject({ at: z.iso.datetime({ offset: true }).optional() });
const daysQuery = z.strictObject({ from: z.string().max(10), to: z.string().max(10) });
const daysCsvQuery = daysQuery.extend({ format: csvFormat });

const named = z.string().trim().min(1).max(100).optional();
const key = z.string().regex(/^[!-~]{1,100}$/, "printable characters without spaces, at most 100");
const adjustmentBody = z.strictObject({
  amount: z.string(),
  reason: z.string().trim().min(1).max(500),
  key: key.optional(),
  actor: named,
});
const settlementBody = z.strictObject({
  amount: z.string(),
  account_id: z.number().int().positive(),
  reference: key,
  actor: named,
});
const openingBody = z.strictObject({
  firm_id: z.number().int().positive().optional(),
  account_id: z.number().int().positive().optional(),
  balance: z.string(),
  at: z.iso.datetime({ offset: true }),
  memo: z.string().trim().min(1).max(500).optional(),
  actor: named,
});

/**
 * `who(named)`: the actor the audit log names for a posting made by hand, from the name the
 * caller gave (the admin API's token holder names themself, as the CLI's --operator does).
 */
export function registerLedgerRoutes(
  app: FastifyInstance,
  prefix: string,
  ledger: LedgerService,
  who: (named: string | undefined) => string,
) {
  const made = <T extends { replayed: boolean }>(reply: FastifyReply, outcome: Outcome<T>) =>
    answer(reply, outcome, outcome.ok && outcome.value.replayed ? 200 : 201);

  app.post(`${prefix}/ledger/firms/:id/adjustments`, async (request, reply) => {
    const id = readId(reply, request.params);
    if (id === undefined) return reply;
    const body = readBody(reply, adjustmentBody, request);
    if (!body) return reply;
    return made(reply, await ledger.adjust(id, body, who(body.actor)));
  });
  app.post(`${prefix}/ledger/firms/:id/settlements`, async (request, reply) => {
    const id = readId(reply, request.params);
    if (id === undefined) return reply;
    const body = readBody(reply, settlementBody, request);
    if (!body) return reply;
    return made(reply, await ledger.settle(id, body, who(body.actor)));
  });
  app.post(`${prefix}/ledger/openings`, async (request, reply) => {
    const body = readBody(reply, openingBody, request);
    if (!body) return reply;
    return made(reply, await ledger.setOpening(body, who(body.actor)));
  });
  app.get(`${prefix}/ledger/openings/proposal`, async (_request, reply) =>
    answer(reply, { ok: true, value: await ledger.openingProposal() }),
  );

  app.get(`${prefix}/ledger/firms/:id/balance`, async (request, reply) => {
    const id = readId(reply, request.params);
    if (id === undefined) return reply;
    const q = read(reply, balanceQuery, request.query);
    if (!q) return reply;
    return answer(reply, await ledger.firmBalance(id, q.at === undefined ? undefined : Date.parse(q.at)));
  });

  // The company's own accounts: commissions earned, bank fees, money held for nobody, refunds owed.
  app.get(`${prefix}/ledger/company`, async (request, reply) => {
    const q = read(reply, balanceQuery, request.query);
    if (!q) return reply;
    return answer(reply, await ledger.companyBalances(q.at === undefined ? undefined : Date.parse(q.at)));
  });

  // A bank account: the cash the ledger expects, the last statement's closing and the difference.
  app.get(`${prefix}/ledger/accounts/:id/balance`, async (request, reply) => {
    const id = readId(reply, request.params);
    if (id === undefined) return reply;
    const q = read(reply, balanceQuery, request.query);
    if (!q) return reply;
    return answer(reply, await ledger.accountBalance(id, q.at === undefined ? undefined : Date.parse(q.at)));
  });

  // The last check of its statements, with the lines and postings that make up the difference.
  app.get(`${prefix}/ledger/accounts/:id/check`, async (request, reply) => {
    const id = readId(reply, request.params);
    if (id === undefined) return reply;
    const q = read(reply, balanceQuery, request.query);
    if (!q) return reply;
    return answer(reply, await ledger.accountCheck(id, q.at === undefined ? undefined : Date.parse(q.at)));
  });

  // One day: its totals and a page of its postings (`next` names where the next page starts).
  app.get(`${prefix}/ledger/firms/:id/days/:date`, (request, reply) => answerFirmDay(request, reply, ledger));

  // Each day's totals over a range (at most a year), oldest first.
  app.get(`${prefix}/ledger/firms/:id/days`, async (request, reply) => {
    const id = readId(reply, request.params);
    if (id === undefined) return reply;
    const q = read(reply, daysQuery, request.query);
    if (!q) return reply;
    const days = await ledger.firmDays(id, q.from, q.to);
    return answer(reply, days.ok ? { ok: true, value: { firm: id, days: days.value } } : days);
  });

  // The same days as CSV, a line a day (report-csv.ts); `format=excel` for a Turkish Excel.
  app.get(`${prefix}/ledger/firms/:id/days.csv`, async (request, reply) => {
    const id = readId(reply, request.params);
    if (id === undefined) return reply;
    const q = read(reply, daysCsvQuery, request.query);
    if (!q) return reply;
    return sendDaysCsv(reply, ledger, { firmId: id, from: q.from, to: q.to, excel: q.format === "excel" });
  });

  // One day's postings as CSV, every page of them, a line a posting.
  app.get(`${prefix}/ledger/firms/:id/days/:date/postings.csv`, (request, reply) =>
    sendFirmDayCsv(request, reply, ledger),
  );
}
