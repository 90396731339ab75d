import { Readable } from "node:stream";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { z } from "zod";
import type { OutboxService } from "../../callbacks/outbox-service.js";
import { operatorActor } from "../../domain/actors.js";
import { maskIban } from "../../domain/masking.js";
import { excelCsv, plainCsv } from "../../http/csv.js";
import { sendJson } from "../../http/envelope.js";
import type { ActingOperator, OperatorDoor } from "../../http/operator-door.js";
import { amountText, idText, limitText, nameSearchText, plainText } from "../../http/operator-fields.js";
import { read, readId, sendRefusal } from "../../http/operator-io.js";
import type { TransactionFilter } from "../../store/transactions/transactions.js";
import { withSearchWindow } from "../search-window.js";
import type { TransactionService } from "../service.js";
import type { ExportRow } from "../views.js";

/** Rows a console search shows at once, and the most an export gives (web/console shows both). */
export const SEARCH_PAGE = 200;
const CSV_LIMIT = 50_000;
/**
 * Rows an export reads from the store at a time: what it holds in memory, whatever its size. Small
 * enough that a page is done with before the heap's young generation is collected twice, so that
 * its rows never reach the old generation, which would grow by tens of megabytes each export.
 */
const CSV_PAGE = 250;
const CSV_COLUMNS = [
  "id",
  "created_at",
  "type",
  "status",
  "firm_id",
  "reference",
  "amount",
  "original_amount",
  "method",
  "user_id",
  "username",
  "first_name",
  "last_name",
  "assigned_bank_name",
  "assigned_iban",
  "iban",
  "decided_at",
  "decided_by",
  // Added at the end, so that sheets reading the columns by position keep working: what
  // reconciling payouts against a bank statement needs besides the above.
  "firm_name",
  "middle_name",
  "iban_valid",
  "decision_note",
] as const satisfies readonly (keyof ExportRow)[];
const CSV_AMOUNTS = ["amount", "original_amount"];

/**
 * Says that a search without dates was given its default start (transactions/search-window.ts), so a screen can
 * say what it shows.
 */
const SEARCH_FROM = "x-search-from";
function sayWindow(reply: FastifyReply, defaultedFrom: number | null): void {
  if (defaultedFrom !== null) reply.header(SEARCH_FROM, new Date(defaultedFrom).toISOString());
}

const search = z.object({
  id: idText.optional(),
  reference: plainText(100).optional(),
  user_id: plainText(50).optional(),
  username: plainText(100).optional(),
  iban: plainText(64).optional(),
  status: z.enum(["pending", "approved", "rejected"]).optional(),
  type: z.enum(["deposit", "withdrawal"]).optional(),
  firm: idText.optional(),
  // The amount exactly, as a bank statement line shows it ("1500.50"): to match a transfer.
  amount: amountText.optional(),
  name: nameSearchText.optional(),
  from: z.iso.datetime({ offset: true }).optional(),
  to: z.iso.datetime({ offset: true }).optional(),
  limit: limitText.optional(),
  // The export's variant (docs/console.md); a search ignores it.
  format: z.enum(["excel"]).optional(),
});

/**
 * What the transactions screen uses besides transactions: the service's clock (a search's default
 * dates count from it), the firms' names (an export's column) and the outbox's redelivery.
 */
export interface TransactionScreenServices {
  transactions: TransactionService;
  now(): number;
  firmNames(): Promise<{ id: number; name: string }[]>;
  outbox: Pick<OutboxService, "redeliver">;
}

/**
 * The transactions screen: search, export, one transaction's detail and national id, and a
 * callback sent again.
 */
export function registerTransactionRoutes(
  ops: FastifyInstance,
  services: TransactionScreenServices,
  door: OperatorDoor<ActingOperator>,
) {
  const { transactions, outbox } = services;
  ops.get("/ops/api/transactions", async (request, reply) => {
    if (!(await door(request, reply, "viewer"))) return reply;
    const asked = searchOf(request, reply, services.now());
    if (asked === undefined) return reply;
    sayWindow(reply, asked.defaultedFrom);
    return sendJson(reply, 200, await transactions.listTransactions(asked.filter));
  });

  ops.get("/ops/api/transactions.csv", async (request, reply) => {
    const who = await door(request, reply, "viewer");
    if (!who) return reply;
    return exportTransactions(services, who.email, request, reply);
  });

  ops.get<{ Params: { id: string } }>("/ops/api/transactions/:id", async (request, reply) => {
    const who = await door(request, reply, "viewer");
    if (!who) return reply;
    const id = readId(reply, request.params);
    if (id === undefined) return reply;
    const detail = await transactions.transactionDetail(id);
    return detail.ok ? sendJson(reply, 200, detail.value) : sendRefusal(reply, detail);
  });

  // A change of sorts (POST, with the CSRF check): it writes the audit row that records who saw it.
  ops.post<{ Params: { id: string } }>("/ops/api/transactions/:id/national-id", async (request, reply) => {
    const who = await door(request, reply, "admin");
    if (!who) return reply;
    const id = readId(reply, request.params);
    if (id === undefined) return reply;
    const shown = await transactions.revealNationalId(id, operatorActor(who.email));
    return shown.ok ? sendJson(reply, 200, shown.value) : sendRefusal(reply, shown);
  });

  ops.post<{ Params: { id: string } }>("/ops/api/callbacks/:id/redeliver", async (request, reply) => {
    const who = await door(request, reply, "operator");
    if (!who) return reply;
    const id = readId(reply, request.params);
    if (id === undefined) return reply;
    const outcome = await outbox.redeliver(id, operatorActor(who.email));
    return outcome.ok ? sendJson(reply, 200, outcome.value) : sendRefusal(reply, outcome);
  });
}

/**
 * A search or an export as asked: the store's filter, the export's variant, and the filter as the
 * export's audit row names it (as given, an IBAN masked as everywhere else). A search shows a page
 * (200 unless asked otherwise; the console says when there may be more); an export is for
 * reconciliation and takes up to 50,000 rows (a day of a busy firm).
 */
function searchOf(request: FastifyRequest, reply: FastifyReply, now: number) {
  const f = read(reply, search, request.query, {
    code: "bad_search",
    message: "bad search: check ids, statuses, amounts, names and ISO 8601 dates",
  });
  if (!f) return undefined;
  const filter: TransactionFilter = {
    id: f.id,
    reference: f.reference,
    userId: f.user_id,
    username: f.username,
    iban: f.iban?.replace(/\s+/g, "").toUpperCase(),
    status: f.status,
    type: f.type,
    firmId: f.firm,
    amountMinor: f.amount,
    nameWords: f.name,
    from: f.from === undefined ? undefined : Date.parse(f.from),
    to: f.to === undefined ? undefined : Date.parse(f.to),
    limit: f.limit ?? SEARCH_PAGE,
  };
  const windowed = withSearchWindow(filter, now);
  const applied =
    windowed.defaultedFrom === null ? {} : { from: new Date(windowed.defaultedFrom).toISOString() };
  const given = Object.fromEntries(
    Object.entries({ ...f, ...applied, iban: f.iban === undefined ? undefined : maskIban(f.iban) }).filter(
      ([, v]) => v !== undefined,
    ),
  );
  return {
    filter: windowed.filter,
    defaultedFrom: windowed.defaultedFrom,
    excel: f.format === "excel",
    given,
  };
}

async function exportTransactions(
  services: TransactionScreenServices,
  email: string,
  request: FastifyRequest,
  reply: FastifyReply,
) {
  const asked = searchOf(request, reply, services.now());
  if (asked === undefined) return reply;
  sayWindow(reply, asked.defaultedFrom);
  const names = new Map((await services.firmNames()).map((f) => [f.id, f.name]));
  const { rows, limited, pages } = await services.transactions.exportOf(
    asked.filter,
    CSV_LIMIT,
    CSV_PAGE,
    (id) => names.get(id) ?? "",
  );
  // Personal data leaving the console: who took which rows is in the audit log first.
  await services.transactions.recordExport(operatorActor(email), {
    filter: asked.given,
    rows,
    format: asked.excel ? "excel" : "csv",
  });
  const writer = asked.excel ? excelCsv(CSV_COLUMNS, CSV_AMOUNTS) : plainCsv(CSV_COLUMNS);
  async function* csv() {
    yield writer.start;
    for await (const page of pages()) yield page.map((r) => writer.line(r)).join("");
  }
  return reply
    .type("text/csv; charset=utf-8")
    .header(
      "content-disposition",
      `attachment; filename="${asked.excel ? "transactions-excel.csv" : "transactions.csv"}"`,
    )
    .header("x-rows-limited", limited ? "true" : "false")
    .send(Readable.from(csv()));
}
