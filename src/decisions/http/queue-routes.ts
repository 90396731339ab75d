import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { z } from "zod";
import { operatorActor } from "../../domain/actors.js";
import { METHODS } from "../../domain/methods.js";
import { parseAmount } from "../../domain/money.js";
import { refusal } from "../../domain/refusal.js";
import { sendJson } from "../../http/envelope.js";
import type { ActingOperator, OperatorDoor } from "../../http/operator-door.js";
import { amountText, idText, nameSearchText, note } from "../../http/operator-fields.js";
import { read, readBody, readId, sendRefusal } from "../../http/operator-io.js";
import type { TransactionService } from "../../transactions/service.js";
import type { DecisionService } from "../service.js";

const decision = z.strictObject({ note: note.optional(), amount: z.string().optional() });
const payingBody = z.strictObject({
  paying: z.boolean(),
  /** With `paying: false`: the holder the operator was shown; another's mark is not taken off. */
  holder: z.string().min(1).max(254).optional(),
});
const queue = z.object({
  type: z.enum(["deposit", "withdrawal"]).default("deposit"),
  order: z.enum(["oldest", "newest"]).default("oldest"),
  firm: idText.optional(),
  amount: amountText.optional(),
  name: nameSearchText.optional(),
  method: z.enum(METHODS).optional(),
});
/**
 * The most rows a queue shows at once. Past it the console says how many there are in all, and
 * the filters (firm, amount, name) and the other order reach the rest.
 */
const QUEUE_PAGE = 500;

/** What the queue screen uses: decisions, and a page of the pending transactions. */
export interface QueueServices {
  decisions: DecisionService;
  transactions: Pick<TransactionService, "pageOfTransactions">;
}

/**
 * The queue screen: the pending transactions, paying-out marks and decisions. Its live changes
 * are decisions' live stream (live.ts), opened under the console's session (backoffice/).
 */
export function registerQueueRoutes(
  ops: FastifyInstance,
  services: QueueServices,
  door: OperatorDoor<ActingOperator>,
) {
  const { decisions } = services;
  ops.get("/ops/api/queue", async (request, reply) => {
    if (!(await door(request, reply, "viewer"))) return reply;
    return pendingQueue(services, request, reply);
  });

  // An operator paying out a withdrawal says so (the console does on the first copy of its
  // fields), so that a colleague does not send the same money; `paying: false` lets go of it.
  ops.post<{ Params: { id: string } }>("/ops/api/transactions/:id/paying", async (request, reply) => {
    const who = await door(request, reply, "operator");
    if (!who) return reply;
    return markPaying(decisions, who.email, request, reply);
  });

  for (const kind of ["approve", "reject"] as const) {
    ops.post<{ Params: { id: string } }>(`/ops/api/transactions/:id/${kind}`, async (request, reply) => {
      const who = await door(request, reply, "operator");
      if (!who) return reply;
      return decide(decisions, kind, who, request, reply);
    });
  }
}

async function pendingQueue(services: QueueServices, request: FastifyRequest, reply: FastifyReply) {
  const q = read(reply, queue, request.query, {
    code: "invalid_input",
    message:
      "type must be deposit or withdrawal, order oldest or newest; firm an id, amount an amount, name up to 5 words, method fast, eft or havale",
  });
  if (!q) return reply;
  const page = await services.transactions.pageOfTransactions({
    status: "pending",
    type: q.type,
    order: q.order,
    firmId: q.firm,
    amountMinor: q.amount,
    nameWords: q.name,
    method: q.method,
    limit: QUEUE_PAGE,
    // Test firms decide their own transactions with the sandbox helpers (docs/sandbox.md):
    // a test withdrawal must never reach an operator who pays out real money.
    liveOnly: true,
  });
  // The page is the body; how many the queue holds in all rides in a header.
  reply.header("x-total-count", String(page.total));
  if (q.type !== "withdrawal") return sendJson(reply, 200, page.rows);
  // Who is paying out each payout now, so that nobody else sends the same money.
  const paying = await services.decisions.payingOf(page.rows.map((r) => r.id));
  // The page's rows are this answer's own: the two fields are added to them, not to copies (a copy
  // of 500 rows would be a large part of what a refresh allocates).
  return sendJson(
    reply,
    200,
    page.rows.map((r) => {
      const claim = paying.get(r.id);
      return Object.assign(r, {
        paying_by: claim?.operator ?? null,
        paying_since: claim ? new Date(claim.claimedAt).toISOString() : null,
      });
    }),
  );
}

async function markPaying(
  decisions: DecisionService,
  email: string,
  request: FastifyRequest<{ Params: { id: string } }>,
  reply: FastifyReply,
) {
  const id = readId(reply, request.params);
  if (id === undefined) return reply;
  const input = readBody(reply, payingBody, request, {
    code: "invalid_input",
    message: "paying must be true or false; holder, if given, an operator's email",
  });
  if (!input) return reply;
  const outcome = await decisions.payingOut(
    id,
    email,
    { paying: input.paying, holder: input.holder },
    operatorActor(email),
  );
  if (outcome.ok) return sendJson(reply, 200, outcome.value);
  if ("paying_by" in outcome)
    return sendRefusal(reply, outcome, { paying_by: outcome.paying_by, paying_since: outcome.paying_since });
  return sendRefusal(reply, outcome);
}

async function decide(
  decisions: DecisionService,
  kind: "approve" | "reject",
  operator: ActingOperator,
  request: FastifyRequest<{ Params: { id: string } }>,
  reply: FastifyReply,
) {
  const id = readId(reply, request.params);
  if (id === undefined) return reply;
  const input = readBody(reply, decision, request, {
    code: "invalid_input",
    message: "note (at most 500 characters, no control characters) and amount are optional strings",
  });
  if (!input) return reply;
  let amountMinor: number | undefined;
  if (kind === "approve" && input.amount !== undefined) {
    const parsed = parseAmount(input.amount);
    if (!parsed.ok)
      return sendRefusal(
        reply,
        refusal("invalid_amount", "amount must be a decimal amount greater than 0 with at most 2 decimals"),
      );
    amountMinor = parsed.minor;
  }
  const outcome = await decisions.decide(
    id,
    kind === "approve"
      ? {
          kind,
          note: input.note,
          amountMinor,
          by: { kind: "operator", role: operator.role },
        }
      : { kind, note: input.note },
    operatorActor(operator.email),
  );
  return outcome.ok ? sendJson(reply, 200, outcome.value) : sendRefusal(reply, outcome);
}
