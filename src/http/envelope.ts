/** Every answer under /paymentapi/v1 is JSON; errors are the contract's two-key envelope. */
import type { FastifyReply } from "fastify";
import { toJson } from "../domain/transaction-view.js";

export function sendJson(reply: FastifyReply, status: number, body: unknown): FastifyReply {
  return sendText(reply, status, toJson(body));
}

/** For bodies with plain values only (no RawJson amounts): the built-in serializer is faster. */
export function sendPlainJson(reply: FastifyReply, status: number, body: object): FastifyReply {
  return sendText(reply, status, JSON.stringify(body));
}

/**
 * `no-store` on every answer: they are one firm's, one operator's or one payer's, and a cache in
 * front keys by URL, not by X-Api-Key or the admin token, so a stored `/transactions/7` of one firm
 * would be served to the next firm asking for that URL.
 */
function sendText(reply: FastifyReply, status: number, json: string): FastifyReply {
  return reply
    .code(status)
    .header("content-type", "application/json; charset=utf-8")
    .header("cache-control", "no-store")
    .send(json.length > LARGE_BODY_CHARS ? Buffer.from(json, "utf8") : json);
}

/**
 * A long answer (a console page of 500 rows is a third of a megabyte) is encoded once into a
 * Buffer, outside the JavaScript heap: sent as a string, it would be measured once for
 * Content-Length and encoded again for the socket, both on the heap.
 */
const LARGE_BODY_CHARS = 16_384;

export function sendError(reply: FastifyReply, status: number, message: string): FastifyReply {
  return sendPlainJson(reply, status, { success: false, message });
}

export const INTERNAL_ERROR_MESSAGE = "An internal error occurred. Please try again later.";
