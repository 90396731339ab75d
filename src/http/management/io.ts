import type { FastifyReply, FastifyRequest } from "fastify";
import type { z } from "zod";
import type { Outcome } from "../../backoffice/service.js";
import { sendError, sendJson } from "../envelope.js";
import { parseJsonBody } from "../merchant/common.js";

/** Reading and answering for the operator APIs (admin API and console): one message per problem. */
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

export function answer<T>(reply: FastifyReply, outcome: Outcome<T>, okStatus = 200) {
  if (!outcome.ok) return sendError(reply, outcome.status, outcome.message);
  return sendJson(reply, okStatus, outcome.value);
}
