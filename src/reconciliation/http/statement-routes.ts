/**
 * `POST /admin/v1/accounts/{id}/statements` (and the console's `/ops/api/...`): a bank statement
 * file (camt.053 or MT940) as the raw request body, read as it arrives (docs/reconciliation.md).
 */
import type { IncomingMessage } from "node:http";
import type { FastifyInstance } from "fastify";
import { refusal } from "../../domain/refusal.js";
import { answer, readId, sendRefusal } from "../../http/operator-io.js";
import { importStatement, type ReconcileDeps } from "../import.js";
import type { LineAccess } from "./line-routes.js";

const TOO_LARGE = refusal("statement_too_large", "Statement too large: at most 200 MB");

export const STATEMENT_LIMIT_BYTES = 200 * 1024 * 1024;
const TYPES = new Set(["application/xml", "text/xml", "text/plain"]);
/**
 * How long the connection may stay silent while a file is matched and written (the answer comes at
 * the end): the allowance of every other request (PAYINTAKE_CONNECTION_SILENCE_MS, 60 s) would
 * cut a large file's answer off while the import goes on. The CLI waits ten minutes for it; a
 * 100,000-line file takes under one.
 */
export const IMPORT_SILENCE_MS = 15 * 60_000;

class TooLarge extends Error {}

/** How long a refused upload is told to wait: an import at the entries' limit takes under a minute. */
const BUSY_RETRY_AFTER_S = 30;
const BUSY = refusal(
  "statement_imports_busy",
  "Other statements are being imported; send this one again in a minute",
);

/**
 * The statement imports one server runs at once, shared by the admin API's and the console's
 * upload: each holds up to its file's budget of memory (about 200 MB, docs/reconciliation.md
 * "Limits"), so a further upload is refused before its body is read, never queued with its
 * connection open. `onChange` hears the count (the metrics' gauge).
 */
export function statementImportSlots(atOnce: number, onChange: (running: number) => void = () => {}) {
  let running = 0;
  return {
    /** A slot, or false when all are taken; a slot taken is given back with `release`. */
    take(): boolean {
      if (running >= atOnce) return false;
      onChange(++running);
      return true;
    },
    release(): void {
      onChange(--running);
    },
  };
}

export type StatementImportSlots = ReturnType<typeof statementImportSlots>;

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

/**
 * The upload under a prefix (/admin/v1 or /ops/api), each with its own door (`access`). Its own
 * scope: every other route takes bodies of at most 64 KB, whole; a statement may be 90 MB and is
 * never held whole.
 */
export function registerStatementUpload(
  app: FastifyInstance,
  prefix: string,
  deps: ReconcileDeps,
  access: LineAccess,
  slots: StatementImportSlots,
): void {
  app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    // The stream itself, to the handler: the reader takes it a chunk at a time.
    scope.addContentTypeParser("*", (_request, payload, done) => done(null, payload));

    scope.post<{ Params: { id: string } }>(
      `${prefix}/accounts/:id/statements`,
      { bodyLimit: STATEMENT_LIMIT_BYTES, config: { longBody: true } },
      async (request, reply) => {
        const who = await access(request, reply, "operator");
        if (!who) return reply;
        request.raw.socket.setTimeout(IMPORT_SILENCE_MS);
        const id = readId(reply, request.params);
        if (id === undefined) return reply;
        const type = (request.headers["content-type"] ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
        if (!TYPES.has(type))
          return sendRefusal(
            reply,
            refusal(
              "unsupported_media_type",
              "Send the statement file as the body, as application/xml (camt.053) or text/plain (MT940)",
            ),
          );
        const declared = Number(request.headers["content-length"] ?? 0);
        if (declared > STATEMENT_LIMIT_BYTES) return sendRefusal(reply, TOO_LARGE);
        if (!slots.take()) {
          reply.header("retry-after", String(BUSY_RETRY_AFTER_S));
          return sendRefusal(reply, BUSY);
        }
        try {
          const outcome = await importStatement(
            deps,
            id,
            limited(request.body as IncomingMessage | undefined, STATEMENT_LIMIT_BYTES),
            who.actor,
          );
          return answer(reply, outcome);
        } catch (err) {
          if (err instanceof TooLarge) return sendRefusal(reply, TOO_LARGE);
          throw err;
        } finally {
          slots.release();
        }
      },
    );
  });
}
