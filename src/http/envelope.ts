import type { FastifyReply } from "fastify";
import { toJson } from "../domain/transaction-view.js";

/** Every answer under /paymentapi/v1 is JSON; errors are the contract's two-key envelope. */
export function sendJson(reply: FastifyReply, status: number, body: unknown): FastifyReply {
  return reply.code(status).header("content-type", "application/json; charset=utf-8").send(toJson(body));
}

export function sendError(reply: FastifyReply, status: number, message: string): FastifyReply {
  return sendJson(reply, status, { success: false, message });
}

export const INTERNAL_ERROR_MESSAGE = "An internal error occurred. Please try again later.";
