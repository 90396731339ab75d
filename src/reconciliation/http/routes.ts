import type { FastifyInstance } from "fastify";
import type { FeedDeps } from "../feed.js";
import { registerFeedRoutes } from "./feed-routes.js";
import { type LineAccess, registerLineRoutes } from "./line-routes.js";
import { registerSampleRoute } from "./sample-routes.js";
import { registerStatementUpload, type StatementImportSlots } from "./statement-routes.js";

/**
 * Every route of reconciliation: the statement upload and the lines' routes under the admin API
 * and the console, each behind its own door and sharing the server's import slots, and the live
 * feed behind its accounts' secrets.
 */
export function registerReconciliationRoutes(
  app: FastifyInstance,
  deps: FeedDeps,
  doors: { admin: LineAccess; console: LineAccess },
  imports: StatementImportSlots,
): void {
  registerStatementUpload(app, "/admin/v1", deps, doors.admin, imports);
  registerStatementUpload(app, "/ops/api", deps, doors.console, imports);
  app.register(async (scope) => registerLineRoutes(scope, "/admin/v1", deps, doors.admin));
  // The admin API's only: the CLI's `statement sample`; the console has no screen for it.
  app.register(async (scope) => registerSampleRoute(scope, "/admin/v1", deps, doors.admin));
  app.register(async (scope) => {
    scope.addHook("onSend", async (_request, reply) => {
      reply.header("cache-control", "no-store");
    });
    registerLineRoutes(scope, "/ops/api", deps, doors.console);
  });
  registerFeedRoutes(app, deps);
}
