import type { FastifyInstance } from "fastify";
import {
  createLiveStreams,
  LIVE_STREAMS_PER_INSTANCE,
  LIVE_STREAMS_PER_OPERATOR,
  LIVE_STREAMS_PER_SESSION,
} from "../../decisions/http/live.js";
import { registerQueueRoutes } from "../../decisions/http/queue-routes.js";
import type { QueueNotices } from "../../decisions/queue-notices.js";
import { operatorActor } from "../../domain/actors.js";
import { sendJson } from "../../http/envelope.js";
import type { ActingOperator, OperatorDoor } from "../../http/operator-door.js";
import { registerLedgerConsoleRoutes } from "../../ledger/http/ops-routes.js";
import { registerManagementRoutes } from "../../management/http/routes.js";
import { consoleGuard } from "../../operators/http/console-guard.js";
import { registerOperatorAccountRoutes } from "../../operators/http/operator-account-routes.js";
import { registerSignInRoutes } from "../../operators/http/sign-in-routes.js";
import type { ConsoleService } from "../../operators/service.js";
import { registerPayoutRoutes } from "../../payouts/http/routes.js";
import { registerTransactionRoutes } from "../../transactions/http/routes.js";
import type { Backoffice } from "../operator-services.js";

/**
 * The operator console's API under /ops/api (the page is web/console/, served by page.ts).
 * Every route needs a session cookie; every change also needs the session's CSRF
 * token in X-CSRF-Token; each route names the least role it needs (viewer < operator < admin).
 * The operators' own sign-in and accounts are the operators' part (operators/http/); the screens
 * of their work are their parts' (decisions/, transactions/, management/ http/), each let in
 * through the console's door: the session guard, with the operator it returns.
 */
export function registerConsoleRoutes(
  app: FastifyInstance,
  consoleService: ConsoleService,
  backoffice: Backoffice,
  queueNotices: QueueNotices,
  heartbeatMs: number,
): void {
  const live = createLiveStreams(queueNotices, {
    heartbeatMs,
    perSession: LIVE_STREAMS_PER_SESSION,
    perOperator: LIVE_STREAMS_PER_OPERATOR,
    perInstance: LIVE_STREAMS_PER_INSTANCE,
  });
  // Before the server stops listening: it would otherwise wait for every open stream.
  app.addHook("preClose", async () => live.closeAll());
  app.register(async (ops) => {
    ops.addHook("onSend", async (_request, reply) => {
      reply.header("cache-control", "no-store");
    });
    const guard = consoleGuard(consoleService);
    const door: OperatorDoor<ActingOperator> = async (request, reply, needed) =>
      (await guard(request, reply, needed))?.operator;

    registerSignInRoutes(ops, consoleService, guard);

    // The firms' names by id, for the screens that list transactions, which carry the id alone: a
    // name, not the firm's keys and settings in every operator's browser.
    ops.get("/ops/api/firm-names", async (request, reply) => {
      if (!(await guard(request, reply, "viewer"))) return reply;
      return sendJson(reply, 200, await backoffice.firmNames());
    });
    registerQueueRoutes(ops, { decisions: backoffice, transactions: backoffice }, door);
    // The live stream (decisions/http/live.ts): the queues' changes as they happen, for as long as
    // the session lives. Long-lived: its duration is not a request's (http/ops/metrics.ts).
    ops.get("/ops/api/events", { config: { longLived: true } }, async (request, reply) => {
      const who = await guard(request, reply, "viewer");
      if (!who) return reply;
      const { token } = who.session;
      return live.open(
        reply,
        { session: token, operator: who.operator.id },
        async () => (await consoleService.session(token)) !== undefined,
      );
    });
    registerTransactionRoutes(
      ops,
      { transactions: backoffice, now: backoffice.now, firmNames: backoffice.firmNames, outbox: backoffice },
      door,
    );
    const management = { management: backoffice, audit: backoffice.audit };
    registerManagementRoutes(ops, "/ops/api", management, async (request, reply, needed) => {
      const who = await guard(request, reply, needed);
      return who && operatorActor(who.operator.email);
    });
    registerPayoutRoutes(ops, "/ops/api", backoffice.payouts, async (request, reply, needed) => {
      const who = await guard(request, reply, needed);
      return who && { actor: operatorActor(who.operator.email), console: true };
    });
    registerLedgerConsoleRoutes(
      ops,
      { ledger: backoffice.ledger, overview: backoffice.ledgerOverview },
      door,
    );
    registerOperatorAccountRoutes(ops, consoleService, guard);

    ops.get("/ops/api/dashboard", async (request, reply) => {
      if (!(await guard(request, reply, "viewer"))) return reply;
      return sendJson(reply, 200, await backoffice.dashboard());
    });
  });
}
