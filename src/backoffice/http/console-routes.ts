import type { FastifyInstance } from "fastify";
import {
  createLiveStreams,
  LIVE_STREAMS_PER_INSTANCE,
  LIVE_STREAMS_PER_OPERATOR,
  LIVE_STREAMS_PER_SESSION,
} from "../../decisions/http/live.js";
import type { QueueNotices } from "../../decisions/queue-notices.js";
import { operatorActor } from "../../domain/actors.js";
import { sendJson } from "../../http/envelope.js";
import { consoleGuard } from "../../operators/http/console-guard.js";
import { registerOperatorAccountRoutes } from "../../operators/http/operator-account-routes.js";
import { registerSignInRoutes } from "../../operators/http/sign-in-routes.js";
import type { ConsoleService } from "../../operators/service.js";
import type { Backoffice } from "../operator-services.js";
import { registerManagementRoutes } from "./management-routes.js";
import { registerQueueRoutes } from "./queue-routes.js";
import { registerTransactionRoutes } from "./transaction-routes.js";

/**
 * The operator console's API under /ops/api (the page is web/console/, served by page.ts).
 * Every route needs a session cookie; every change also needs the session's CSRF
 * token in X-CSRF-Token; each route names the least role it needs (viewer < operator < admin).
 * The operators' own sign-in and accounts are the operators' part (operators/http/); the screens
 * of their work are here, one file each.
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

    registerSignInRoutes(ops, consoleService, guard);

    // The firms' names by id, for the screens that list transactions, which carry the id alone: a
    // name, not the firm's keys and settings in every operator's browser.
    ops.get("/ops/api/firm-names", async (request, reply) => {
      if (!(await guard(request, reply, "viewer"))) return reply;
      return sendJson(reply, 200, await backoffice.firmNames());
    });
    registerQueueRoutes(ops, { consoleService, backoffice, live, guard });
    registerTransactionRoutes(ops, backoffice, guard);
    registerManagementRoutes(ops, "/ops/api", backoffice, async (request, reply, needed) => {
      const who = await guard(request, reply, needed);
      return who && operatorActor(who.operator.email);
    });
    registerOperatorAccountRoutes(ops, consoleService, guard);

    ops.get("/ops/api/dashboard", async (request, reply) => {
      if (!(await guard(request, reply, "viewer"))) return reply;
      return sendJson(reply, 200, await backoffice.dashboard());
    });
  });
}
