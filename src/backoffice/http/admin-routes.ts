/**
 * The operator API under /admin/v1, used by the `payintake` CLI while the server runs. Guarded by
 * a bearer token (PAYINTAKE_ADMIN_TOKEN, backoffice/admin-token-guard.ts, with its limit on wrong tokens
 * per address): the automation and CLI door. Its management routes are
 * the console's too (management/http/routes.ts), there under operator sessions and roles.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { refusal } from "../../domain/refusal.js";
import { sendJson } from "../../http/envelope.js";
import { idParam } from "../../http/operator-fields.js";
import { answer, read, readBody, sendRefusal } from "../../http/operator-io.js";
import { registerLedgerRoutes } from "../../ledger/http/routes.js";
import { registerManagementRoutes } from "../../management/http/routes.js";
import { ADMIN_API } from "../../management/service.js";
import { operatorCreate } from "../../operators/http/operator-schemas.js";
import type { ConsoleService } from "../../operators/service.js";
import { registerPayoutRoutes } from "../../payouts/http/routes.js";
import type { AdminTokenGuard } from "../admin-token-guard.js";
import type { Backoffice } from "../operator-services.js";
import * as s from "./admin-schemas.js";

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
    if (verdict.reason === "invalid")
      return sendRefusal(reply, refusal("invalid_admin_token", "Invalid admin token"));
    if (verdict.firstHere)
      request.log.warn({ ip: request.ip }, "admin API: too many wrong tokens from this address");
    reply.header("retry-after", String(Math.ceil(verdict.retryAfterMs / 1000)));
    return sendRefusal(
      reply,
      refusal("admin_token_throttled", "Too many wrong admin tokens from your address; try again later"),
    );
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

    const id = (request: FastifyRequest, reply: FastifyReply) => read(reply, idParam, request.params);

    registerManagementRoutes(
      admin,
      "/admin/v1",
      { management: backoffice, audit: backoffice.audit },
      async () => ADMIN_API,
    );

    // The token's holder names who acts (the CLI's --operator); never a second person for sure.
    registerPayoutRoutes(
      admin,
      "/admin/v1",
      backoffice.payouts,
      async (_request, _reply, _needed, named) => ({
        actor: claimedBy(named ?? "admin"),
        console: false,
      }),
    );

    registerLedgerRoutes(admin, "/admin/v1", backoffice.ledger, (named) => claimedBy(named ?? "admin"));

    admin.get("/admin/v1/transactions", async (request, reply) => {
      const q = read(reply, s.txListQuery, request.query);
      if (!q) return reply;
      return sendJson(
        reply,
        200,
        await backoffice.listTransactions({
          firmId: q.firm,
          status: q.status,
          limit: q.limit,
        }),
      );
    });
    admin.get("/admin/v1/transactions/:id", async (request, reply) => {
      const p = id(request, reply);
      if (!p) return reply;
      return answer(reply, await backoffice.showTransaction(p.id));
    });
    admin.post("/admin/v1/transactions/:id/approve", async (request, reply) => {
      const p = id(request, reply);
      if (!p) return reply;
      const input = readBody(reply, s.approveBody, request);
      if (!input) return reply;
      const { actor, note, amount } = input;
      return answer(
        reply,
        await backoffice.decide(
          p.id,
          { kind: "approve", note, amountMinor: amount, by: { kind: "admin_api" } },
          claimedBy(actor),
        ),
      );
    });
    admin.post("/admin/v1/transactions/:id/reject", async (request, reply) => {
      const p = id(request, reply);
      if (!p) return reply;
      const input = readBody(reply, s.rejectBody, request);
      if (!input) return reply;
      const { actor, note } = input;
      return answer(reply, await backoffice.decide(p.id, { kind: "reject", note }, claimedBy(actor)));
    });

    admin.post("/admin/v1/operators", async (request, reply) => {
      const input = readBody(reply, operatorCreate, request);
      if (!input) return reply;
      const created = await consoleService.createOperator(input.email, input.role, input.password ?? null);
      return answer(reply, created, 201);
    });

    // Break glass: an operator (the last admin, say) who lost their authenticator signs in with
    // their password alone, and sets up a new one.
    admin.post("/admin/v1/operators/reset-second-factor", async (request, reply) => {
      const input = readBody(reply, s.operatorEmail, request);
      if (!input) return reply;
      return answer(reply, await consoleService.resetSecondFactor(input.email, "admin-api"));
    });

    admin.get("/admin/v1/callbacks/receivers", async (_request, reply) =>
      sendJson(reply, 200, backoffice.callbackReceivers()),
    );
    admin.get("/admin/v1/callbacks", async (request, reply) => {
      const q = read(reply, s.callbackListQuery, request.query);
      if (!q) return reply;
      const { status, firm, limit } = q;
      return sendJson(reply, 200, await backoffice.listCallbacks({ status, firmId: firm, limit }));
    });
    admin.get("/admin/v1/callbacks/:id", async (request, reply) => {
      const p = id(request, reply);
      if (!p) return reply;
      return answer(reply, await backoffice.showCallback(p.id));
    });
    admin.post("/admin/v1/callbacks/:id/redeliver", async (request, reply) => {
      const p = id(request, reply);
      if (!p) return reply;
      return answer(reply, await backoffice.redeliver(p.id));
    });
    admin.post("/admin/v1/callbacks/redeliver", async (request, reply) => {
      const input = readBody(reply, s.redeliverFailedBody, request);
      if (!input) return reply;
      return answer(reply, await backoffice.redeliverFailedSince(input.failed_since));
    });
  });
}
