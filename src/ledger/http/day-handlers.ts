/**
 * A firm's day, as JSON or as CSV, read the same way under both surfaces (routes.ts for the admin
 * API, ops-routes.ts for the console): its id and date from the path, its page or format from the
 * query, the figures the service's.
 */
import type { FastifyReply, FastifyRequest } from "fastify";
import { z } from "zod";
import { answer, read, readId } from "../../http/operator-io.js";
import { DAY_PAGE, type LedgerService } from "../service.js";
import { csvFormat, sendDayCsv } from "./report-csv.js";

const dayParams = z.strictObject({ id: z.string(), date: z.string().max(10) });
const dayQuery = z.strictObject({
  after: z.string().max(40).optional(),
  limit: z.coerce.number().int().min(1).max(DAY_PAGE.max).optional(),
});
const dayCsvQuery = z.strictObject({ format: csvFormat });

/** The firm and day a path names, or undefined once the refusal is answered. */
function firmAndDay(request: FastifyRequest, reply: FastifyReply): { id: number; date: string } | undefined {
  const params = read(reply, dayParams, request.params);
  if (!params) return undefined;
  const id = readId(reply, { id: params.id });
  return id === undefined ? undefined : { id, date: params.date };
}

/** One day: its totals and a page of its postings (`next` names where the next page starts). */
export async function answerFirmDay(request: FastifyRequest, reply: FastifyReply, ledger: LedgerService) {
  const day = firmAndDay(request, reply);
  if (!day) return reply;
  const q = read(reply, dayQuery, request.query);
  if (!q) return reply;
  return answer(reply, await ledger.firmDay(day.id, day.date, q));
}

/** One day's postings as CSV, every page of them, a line a posting. */
export async function sendFirmDayCsv(request: FastifyRequest, reply: FastifyReply, ledger: LedgerService) {
  const day = firmAndDay(request, reply);
  if (!day) return reply;
  const q = read(reply, dayCsvQuery, request.query);
  if (!q) return reply;
  return sendDayCsv(reply, ledger, { firmId: day.id, date: day.date, excel: q.format === "excel" });
}
