import type { IncomingMessage } from "node:http";
import type { FastifyInstance } from "fastify";
import { z } from "zod";
import type { AdminTokenGuard } from "../../backoffice/admin-token-guard.js";
import { adminTokenHook } from "../../backoffice/http/admin-routes.js";
import { limitText } from "../../backoffice/http/management-schemas.js";
import { formatMinor } from "../../domain/money.js";
import { isoTime } from "../../domain/transaction-view.js";
import { sendError, sendJson } from "../../http/envelope.js";
import { idText, recordIdOf } from "../../http/operator-fields.js";
import { answer, parse } from "../../http/operator-io.js";
import type { StatementLineState } from "../../store/schema.js";
import type { StatementLineRow } from "../../store/statement-lines.js";
import { importStatement, type ReconcileDeps } from "../import.js";

/**
 * `POST /admin/v1/accounts/{id}/statements`: a bank statement file (camt.053 or MT940) as the raw
 * request body, read as it arrives (docs/reconciliation.md). Its own scope: every other route takes
 * bodies of at most a megabyte, whole; a statement may be 90 MB and is never held whole.
 */
export const STATEMENT_LIMIT_BYTES = 200 * 1024 * 1024;
const TYPES = new Set(["application/xml", "text/xml", "text/plain"]);

class TooLarge extends Error {}

/** The body's bytes as they come, stopping at the limit (none when no body came). */
async function* limited(body: IncomingMessage | undefined, limit: number): AsyncGenerator<Uint8Array> {
  if (body === undefined || body === null || typeof body[Symbol.asyncIterator] !== "function") return;
  let seen = 0;
  for await (const chunk of body) {
    seen += (chunk as Buffer).length;
    if (seen > limit) throw new TooLarge();
    yield chunk as Buffer;
  }
}

/** `--state matched` is the lines that approved their deposit or found it approved. */
const STATES: Record<string, StatementLineState[]> = {
  matched: ["approved", "settled"],
  suggested: ["suggested"],
  unmatched: ["unmatched"],
  after_cancellation: ["after_cancellation"],
  debit: ["debit"],
  not_ours: ["not_ours"],
};
const listQuery = z.strictObject({
  account: idText.optional(),
  state: z.enum(Object.keys(STATES) as [string, ...string[]]).optional(),
  limit: limitText.optional(),
});

/** A line as the operator API shows it: amounts as the contract writes them, times in ISO 8601. */
export function lineView(row: StatementLineRow) {
  return {
    id: Number(row.id),
    account_id: Number(row.account_id),
    booked_at: isoTime(Number(row.booked_at)),
    date_only: row.date_only === 1,
    amount: formatMinor(Number(row.amount)),
    direction: row.direction,
    currency: row.currency,
    sender_name: row.sender_name,
    sender_iban: row.sender_iban,
    description: row.description,
    bank_ref: row.bank_ref,
    state: row.state,
    transaction_id: row.transaction_id === null ? null : Number(row.transaction_id),
    evidence: JSON.parse(row.evidence) as unknown,
    source: row.source,
    created_at: isoTime(Number(row.created_at)),
  };
}

export function registerStatementRoutes(
  app: FastifyInstance,
  deps: ReconcileDeps,
  guard: AdminTokenGuard,
): void {
  app.register(async (scope) => {
    scope.addHook("onRequest", adminTokenHook(guard));
    scope.removeAllContentTypeParsers();
    // The stream itself, to the handler: the reader takes it a chunk at a time.
    scope.addContentTypeParser("*", (_request, payload, done) => done(null, payload));

    scope.get("/admin/v1/statement-lines", async (request, reply) => {
      const q = parse(listQuery, request.query);
      if (!q.ok) return sendError(reply, 400, q.message);
      const rows = await deps.repos.statements.list({
        accountId: q.value.account,
        states: q.value.state === undefined ? undefined : STATES[q.value.state],
        limit: q.value.limit ?? 100,
      });
      return sendJson(reply, 200, rows.map(lineView));
    });

    scope.get<{ Params: { id: string } }>("/admin/v1/statement-lines/:id", async (request, reply) => {
      const id = recordIdOf(request.params.id);
      if (id === undefined) return sendError(reply, 400, "invalid id");
      const row = await deps.repos.statements.get(id);
      return row ? sendJson(reply, 200, lineView(row)) : sendError(reply, 404, "statement line not found");
    });

    scope.post<{ Params: { id: string } }>(
      "/admin/v1/accounts/:id/statements",
      { bodyLimit: STATEMENT_LIMIT_BYTES },
      async (request, reply) => {
        const id = recordIdOf(request.params.id);
        if (id === undefined) return sendError(reply, 400, "invalid id");
        const type = (request.headers["content-type"] ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
        if (!TYPES.has(type))
          return sendError(
            reply,
            415,
            "Send the statement file as the body, as application/xml (camt.053) or text/plain (MT940)",
          );
        const declared = Number(request.headers["content-length"] ?? 0);
        if (declared > STATEMENT_LIMIT_BYTES)
          return sendError(reply, 413, "Statement too large: at most 200 MB");
        try {
          const outcome = await importStatement(
            deps,
            id,
            limited(request.body as IncomingMessage | undefined, STATEMENT_LIMIT_BYTES),
            "admin-api",
          );
          return answer(reply, outcome);
        } catch (err) {
          if (err instanceof TooLarge) return sendError(reply, 413, "Statement too large: at most 200 MB");
          throw err;
        }
      },
    );
  });
}
