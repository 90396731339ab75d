/**
 * The operator API under /admin/v1, used by the `payintake` CLI while the server runs. Guarded by
 * a bearer token (PAYINTAKE_ADMIN_TOKEN, backoffice/admin-token-guard.ts, with its limit on wrong tokens
 * per address): the automation and CLI door. Its management routes are
 * the console's too (backoffice/http/management-routes.ts), there under operator sessions and roles.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { sendError, sendJson } from "../../http/envelope.js";
import { idParam } from "../../http/operator-fields.js";
import { answer, parse, parseBody } from "../../http/operator-io.js";
import { ADMIN_API } from "../../management/service.js";
import { operatorCreate } from "../../operators/http/operator-schemas.js";
import type { ConsoleService } from "../../operators/service.js";
import type { AdminTokenGuard } from "../admin-token-guard.js";
import type { Backoffice } from "../operator-services.js";
import { registerManagementRoutes } from "./management-routes.js";
import * as s from "./management-schemas.js";

/**
 * A decider named by the token's holder (the CLI's --operator): recorded as `admin-api:<name>`, so
 * the audit log never shows a name the admin API was given as a signed-in operator's
 * (`operator:<email>`, which only the console writes).
 */
const claimedBy = (name: string) => `${ADMIN_API}:${name}`;

/** The admin API's door: the bearer token, with its limit on wrong tokens per address. */
export function adminTokenHook(guard: AdminTokenGuard) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const verdict = await guard.check(request.headers.authorization, request.ip);
    if (verdict.ok) return;
    if (verdict.reason === "invalid") return sendError(reply, 401, "Invalid admin token");
    if (verdict.firstHere)
      request.log.warn({ ip: request.ip }, "admin API: too many wrong tokens from this address");
    reply.header("retry-after", String(Math.ceil(verdict.retryAfterMs / 1000)));
    return sendError(reply, 429, "Too many wrong admin tokens from your address; try again later");
  };
}

export function registerAdminRoutes(
  app: FastifyInstance,
  backoffice: Backoffice,
  guard: AdminTokenGuard,
  consoleService: ConsoleService,
): void {
  app.register(async (admin) => {
    admin.addHook("onRequest", adminTokenHook(guard));

    const id = (request: FastifyRequest) => parse(idParam, request.params);

    registerManagementRoutes(admin, "/admin/v1", backoffice, async () => ADMIN_API);

    admin.get("/admin/v1/transactions", async (request, reply) => {
      const q = parse(s.txListQuery, request.query);
      if (!q.ok) return sendError(reply, 400, q.message);
      return sendJson(
        reply,
        200,
        await backoffice.listTransactions({
          firmId: q.value.firm,
          status: q.value.status,
          limit: q.value.limit,
        }),
      );
    });
    admin.get("/admin/v1/transactions/:id", async (request, reply) => {
      const p = id(request);
      if (!p.ok) return sendError(reply, 400, p.message);
      return answer(reply, await backoffice.showTransaction(p.value.id));
    });
    admin.post("/admin/v1/transactions/:id/approve", async (request, reply) => {
      const p = id(request);
      const input = parseBody(s.approveBody, request);
      if (!p.ok) return sendError(reply, 400, p.message);
      if (!input.ok) return sendError(reply, 400, input.message);
      const { actor, note, amount } = input.value;
      return answer(
        reply,
        await backoffice.decide(
          p.value.id,
          { kind: "approve", note, amountMinor: amount, by: { kind: "admin_api" } },
          claimedBy(actor),
        ),
      );
    });
    admin.post("/admin/v1/transactions/:id/reject", async (request, reply) => {
      const p = id(request);
      const input = parseBody(s.rejectBody, request);
      if (!p.ok) return sendError(reply, 400, p.message);
      if (!input.ok) return sendError(reply, 400, input.message);
      const { actor, note } = input.value;
      return answer(reply, await backoffice.decide(p.value.id, { kind: "reject", note }, claimedBy(actor)));
    });

    admin.post("/admin/v1/operators", async (request, reply) => {
      const input = parseBody(operatorCreate, request);
      if (!input.ok) return sendError(reply, 400, input.message);
      const created = await consoleService.createOperator(
        input.value.email,
        input.value.role,
        input.value.password ?? null,
      );
      return answer(reply, created, 201);
    });

    // Break glass: an operator (the last admin, say) who lost their authenticator signs in with
    // their password alone, and sets up a new one.
    admin.post("/admin/v1/operators/reset-second-factor", async (request, reply) => {
      const input = parseBody(s.operatorEmail, request);
      if (!input.ok) return sendError(reply, 400, input.message);
      return answer(reply, await consoleService.resetSecondFactor(input.value.email, "admin-api"));
    });

    admin.get("/admin/v1/callbacks/receivers", async (_request, reply) =>
      sendJson(reply, 200, backoffice.callbackReceivers()),
    );
    admin.get("/admin/v1/callbacks", async (request, reply) => {
      const q = parse(s.callbackListQuery, request.query);
      if (!q.ok) return sendError(reply, 400, q.message);
      const { status, firm, limit } = q.value;
      return sendJson(reply, 200, await backoffice.listCallbacks({ status, firmId: firm, limit }));
    });
    admin.get("/admin/v1/callbacks/:id", async (request, reply) => {
      const p = id(request);
      if (!p.ok) return sendError(reply, 400, p.message);
      return answer(reply, await backoffice.showCallback(p.value.id));
    });
    admin.post("/admin/v1/callbacks/:id/redeliver", async (request, reply) => {
      const p = id(request);
      if (!p.ok) return sendError(reply, 400, p.message);
      return answer(reply, await backoffice.redeliver(p.value.id));
    });
    admin.post("/admin/v1/callbacks/redeliver", async (request, reply) => {
      const input = parseBody(s.redeliverFailedBody, request);
      if (!input.ok) return sendError(reply, 400, input.message);
      return answer(reply, await backoffice.redeliverFailedSince(input.value.failed_since));
    });
  });
}
