/**
 * Statement lines for operators, the same routes under the admin API (/admin/v1, its token) and the
 * console (/ops/api, session and role): the list and a line with its candidates, approving a
 * deposit with a line, marking one not ours, a line typed from the bank's screen, and the feeds.
 * `access` answers 401/403 itself and returns undefined, or who acts.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { formatMinor } from "../../domain/money.js";
import { isoTime } from "../../domain/transaction-view.js";
import { turkeyDayStart } from "../../domain/turkey-time.js";
import { sendError, sendJson } from "../../http/envelope.js";
import { idParam } from "../../http/operator-fields.js";
import { answer, parse, parseBody } from "../../http/operator-io.js";
import type { StatementLineRow } from "../../store/statements/statement-lines.js";
import { operatorTransactionView } from "../../transactions/views.js";
import { type FeedDeps, feeds, makeFeedSecret } from "../feed.js";
import { approveWithLine, type LineActor, markNotOurs } from "../line-actions.js";
import { readTypedLine, typeLine } from "../typed-lines.js";
import { approveBody, feedSecretBody, listQuery, notOursBody, STATES, typedLine } from "./line-schemas.js";

export type Role = "viewer" | "operator" | "admin";
export type LineAccess = (
  request: FastifyRequest,
  reply: FastifyReply,
  needed: Role,
) => Promise<LineActor | undefined>;

const DAY_MS = 86_400_000;

/** A line as operators see it: amounts as the contract writes them, times in ISO 8601. */
export function lineView(row: StatementLineRow) {
  const evidence = JSON.parse(row.evidence) as unknown;
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
    evidence,
    held: heldView(evidence),
    source: row.source,
    created_at: isoTime(Number(row.created_at)),
    decided_at: row.decided_at === null ? null : isoTime(Number(row.decided_at)),
    decided_by: row.decided_by,
  };
}

/**
 * Why a proven line was only suggested (matching.ts, HeldApprovals): its statement does not balance
 * (by `difference`, the closing balance less opening and entries, when both balances were given),
 * or its hours were too crowded to be sure. Null for any other line.
 */
function heldView(evidence: unknown): { code: string; difference: string | null } | null {
  const held = (evidence as { held?: { code: string; differenceMinor: number | null } } | null)?.held;
  if (!held) return null;
  const d = held.differenceMinor;
  return {
    code: held.code,
    difference: d === null ? null : `${d < 0 ? "-" : ""}${formatMinor(Math.abs(d))}`,
  };
}

/** The deposits a line's evidence names, best first: its own, or the ranked suggestions. */
function namedDeposits(evidence: unknown): { id: number; score: number | null; evidence: unknown }[] {
  const e = evidence as {
    depositId?: number;
    evidence?: unknown;
    suggestions?: { depositId: number; score: number; evidence: unknown }[];
  };
  if (Array.isArray(e.suggestions))
    return e.suggestions.map((s) => ({ id: s.depositId, score: s.score, evidence: s.evidence }));
  return typeof e.depositId === "number" ? [{ id: e.depositId, score: null, evidence: e.evidence }] : [];
}

async function lineDetail(deps: FeedDeps, row: StatementLineRow) {
  const view = lineView(row);
  const candidates = [];
  for (const named of namedDeposits(view.evidence)) {
    const tx = await deps.repos.transactions.get(named.id);
    if (tx)
      candidates.push({
        transaction: operatorTransactionView(tx),
        score: named.score,
        evidence: named.evidence,
      });
  }
  return { ...view, candidates };
}

export function registerLineRoutes(
  scope: FastifyInstance,
  prefix: string,
  deps: FeedDeps,
  access: LineAccess,
): void {
  const id = (request: FastifyRequest) => parse(idParam, request.params);

  scope.get(`${prefix}/statement-lines`, async (request, reply) => {
    if (!(await access(request, reply, "viewer"))) return reply;
    const q = parse(listQuery, request.query);
    if (!q.ok) return sendError(reply, 400, q.message);
    const day = q.value.day === undefined ? undefined : turkeyDayStart(q.value.day);
    const rows = await deps.repos.statements.list({
      accountId: q.value.account,
      states: q.value.state === undefined ? undefined : STATES[q.value.state],
      bookedFrom: day,
      bookedTo: day === undefined ? undefined : day + DAY_MS,
      before: q.value.before,
      limit: q.value.limit ?? 100,
    });
    return sendJson(reply, 200, rows.map(lineView));
  });

  scope.get(`${prefix}/statement-lines/:id`, async (request, reply) => {
    if (!(await access(request, reply, "viewer"))) return reply;
    const p = id(request);
    if (!p.ok) return sendError(reply, 400, p.message);
    const row = await deps.repos.statements.get(p.value.id);
    return row
      ? sendJson(reply, 200, await lineDetail(deps, row))
      : sendError(reply, 404, "statement line not found");
  });

  scope.post(`${prefix}/statement-lines/:id/approve`, async (request, reply) => {
    const who = await access(request, reply, "operator");
    if (!who) return reply;
    const p = id(request);
    if (!p.ok) return sendError(reply, 400, p.message);
    const body = parseBody(approveBody, request);
    if (!body.ok) return sendError(reply, 400, body.message);
    return answer(reply, await approveWithLine(deps, p.value.id, body.value.transaction_id, who));
  });

  scope.post(`${prefix}/statement-lines/:id/not-ours`, async (request, reply) => {
    const who = await access(request, reply, "operator");
    if (!who) return reply;
    const p = id(request);
    if (!p.ok) return sendError(reply, 400, p.message);
    const body = parseBody(notOursBody, request);
    if (!body.ok) return sendError(reply, 400, body.message);
    return answer(reply, await markNotOurs(deps, p.value.id, who.actor, body.value.note?.trim() || null));
  });

  scope.post(`${prefix}/accounts/:id/statement-lines`, async (request, reply) => {
    const who = await access(request, reply, "operator");
    if (!who) return reply;
    const p = id(request);
    if (!p.ok) return sendError(reply, 400, p.message);
    const body = parseBody(typedLine, request);
    if (!body.ok) return sendError(reply, 400, body.message);
    const read = readTypedLine(body.value, deps.now());
    if (!read.ok) return sendError(reply, 400, read.message);
    return answer(reply, await typeLine(deps, p.value.id, read.line, who.actor));
  });

  scope.get(`${prefix}/statement-feeds`, async (request, reply) => {
    if (!(await access(request, reply, "viewer"))) return reply;
    return sendJson(reply, 200, await feeds(deps));
  });

  scope.post(`${prefix}/accounts/:id/feed-secret`, async (request, reply) => {
    const who = await access(request, reply, "admin");
    if (!who) return reply;
    const p = id(request);
    if (!p.ok) return sendError(reply, 400, p.message);
    const body = parseBody(feedSecretBody, request);
    if (!body.ok) return sendError(reply, 400, body.message);
    return answer(reply, await makeFeedSecret(deps, p.value.id, body.value.silence_minutes, who.actor));
  });
}
