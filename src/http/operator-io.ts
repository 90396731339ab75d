/** Reading and answering for the operator APIs (admin API and console): one message per problem. */
import type { FastifyReply, FastifyRequest } from "fastify";
import type { z } from "zod";
import type { Outcome, Refusal, RefusalReason } from "../domain/refusal.js";
import { parseJsonBody } from "./body.js";
import { sendError, sendJson } from "./envelope.js";

export function parse<T extends z.ZodType>(
  schema: T,
  input: unknown,
): { ok: true; value: z.output<T> } | { ok: false; message: string } {
  const result = schema.safeParse(input);
  if (result.success) return { ok: true, value: result.data };
  const issue = result.error.issues[0];
  const where = issue?.path.length ? `${issue.path.join(".")}: ` : "";
  return { ok: false, message: `${where}${issue?.message ?? "invalid input"}` };
}

export function parseBody<T extends z.ZodType>(schema: T, request: FastifyRequest) {
  const json = parseJsonBody(request);
  if (!json.ok) return { ok: false as const, message: "request body is not valid JSON" };
  return parse(schema, json.value);
}

/** The status each reason for refusing an operator's request is answered with. */
export const REFUSAL_STATUS: { [reason in RefusalReason]: number } = {
  invalid: 400,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  locked: 423,
};

export function sendRefusal(reply: FastifyReply, refusal: Pick<Refusal, "reason" | "message">) {
  return sendError(reply, REFUSAL_STATUS[refusal.reason], refusal.message);
}

/** A service's outcome: its value, or the refusal, answered with its reason's status. */
export function answer<T>(reply: FastifyReply, outcome: Outcome<T>, okStatus = 200) {
  if (!outcome.ok) return sendRefusal(reply, outcome);
  return sendJson(reply, okStatus, outcome.value);
}
