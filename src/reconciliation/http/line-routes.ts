/**
 * Statement lines for operators, the same routes under the admin API (/admin/v1, its token) and the
 * console (/ops/api, session and role): the list and a line with its candidates, approving a
 * deposit with a line, marking one not ours, a line typed from the bank's screen, and the feeds.
 * `access` answers 401/403 itself and returns undefined, or who acts.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { refusal } from "../../domain/refusal.js";
import { turkeyDayStart } from "../../domain/turkey-time.js";
import { sendJson } from "../../http/envelope.js";
import { idParam } from "../../http/operator-fields.js";
import { answer, read, readBody, sendRefusal } from "../../http/operator-io.js";
import { type FeedDeps, feeds, makeFeedSecret } from "../feed.js";
import { approveWithLine, type LineActor, markNotOurs } from "../line-actions.js";
import { lineDetail, lineView } from "../line-views.js";
import { markRefundPaid } from "../refund-actions.js";
import { readTypedLine, typeLine } from "../typed-lines.js";
import {
  approveBody,
  feedSecretBody,
  listQuery,
  notOursBody,
  refundBody,
  STATES,
  typedLine,
} from "./line-schemas.js";

export type Role = "viewer" | "operator" | "admin";
export type LineAccess = (
  request: FastifyRequest,
  reply: FastifyReply,
  needed: Role,
) => Promise<LineActor | undefined>;

const DAY_MS = 86_400_000;

export function registerLineRoutes(
  scope: FastifyInstance,
  prefix: string,
  deps: FeedDeps,
  access: LineAccess,
): void {
  const id = (request: FastifyRequest, reply: FastifyReply) => read(reply, idParam, request.params);

  scope.get(`${prefix}/statement-lines`, async (request, reply) => {
    if (!(await access(request, reply, "viewer"))) return reply;
    const q = read(reply, listQuery, request.query);
    if (!q) return reply;
    const day = q.day === undefined ? undefined : turkeyDayStart(q.day);
    const rows = await deps.repos.statements.list({
      accountId: q.account,
      states: q.state === undefined ? undefined : STATES[q.state],
      bookedFrom: day,
      bookedTo: day === undefined ? undefined : day + DAY_MS,
      before: q.before,
      limit: q.limit ?? 100,
    });
    return sendJson(reply, 200, rows.map(lineView));
  });

  scope.get(`${prefix}/statement-lines/:id`, async (request, reply) => {
    if (!(await access(request, reply, "viewer"))) return reply;
    const p = id(request, reply);
    if (!p) return reply;
    const row = await deps.repos.statements.get(p.id);
    return row
      ? sendJson(reply, 200, await lineDetail(deps, row))
      : sendRefusal(reply, refusal("statement_line_not_found", "statement line not found"));
  });

  scope.post(`${prefix}/statement-lines/:id/approve`, async (request, reply) => {
    const who = await access(request, reply, "operator");
    if (!who) return reply;
    const p = id(request, reply);
    if (!p) return reply;
    const body = readBody(reply, approveBody, request);
    if (!body) return reply;
    return answer(reply, await approveWithLine(deps, p.id, body.transaction_id, who));
  });

  scope.post(`${prefix}/statement-lines/:id/not-ours`, async (request, reply) => {
    const who = await access(request, reply, "operator");
    if (!who) return reply;
    const p = id(request, reply);
    if (!p) return reply;
    const body = readBody(reply, notOursBody, request);
    if (!body) return reply;
    return answer(reply, await markNotOurs(deps, p.id, who.actor, body.note?.trim() || null));
  });

  scope.post(`${prefix}/statement-lines/:id/refund`, async (request, reply) => {
    const who = await access(request, reply, "operator");
    if (!who) return reply;
    const p = id(request, reply);
    if (!p) return reply;
    const body = readBody(reply, refundBody, request);
    if (!body) return reply;
    return answer(reply, await markRefundPaid(deps, p.id, body.of, who.actor, body.note?.trim() || null));
  });

  scope.post(`${prefix}/accounts/:id/statement-lines`, async (request, reply) => {
    const who = await access(request, reply, "operator");
    if (!who) return reply;
    const p = id(request, reply);
    if (!p) return reply;
    const body = readBody(reply, typedLine, request);
    if (!body) return reply;
    const typed = readTypedLine(body, deps.now());
    if (!typed.ok) return sendRefusal(reply, refusal("invalid_input", typed.message));
    return answer(reply, await typeLine(deps, p.id, typed.line, who.actor));
  });

  scope.get(`${prefix}/statement-feeds`, async (request, reply) => {
    if (!(await access(request, reply, "viewer"))) return reply;
    return sendJson(reply, 200, await feeds(deps));
  });

  scope.post(`${prefix}/accounts/:id/feed-secret`, async (request, reply) => {
    const who = await access(request, reply, "admin");
    if (!who) return reply;
    const p = id(request, reply);
    if (!p) return reply;
    const body = readBody(reply, feedSecretBody, request);
    if (!body) return reply;
    return answer(reply, await makeFeedSecret(deps, p.id, body.silence_minutes, who.actor));
  });
}
