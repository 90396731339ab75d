import { timingSafeEqual } from "node:crypto";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { z } from "zod";
import type { Backoffice, Outcome } from "../../backoffice/service.js";
import type { ConsoleService } from "../../console/service.js";
import { sendError, sendJson } from "../envelope.js";
import { parseJsonBody } from "../merchant/common.js";
import * as s from "./schemas.js";

/**
 * The operator API under /admin/v1, used by the `payintake` CLI while the server runs. Guarded by
 * a bearer token (PAYINTAKE_ADMIN_TOKEN). The web console of a later issue gets its own sessions
 * and roles; this stays the automation and CLI door.
 */
function tokenMatches(expected: Buffer, header: string | undefined): boolean {
  if (!header?.startsWith("Bearer ")) return false;
  const given = Buffer.from(header.slice(7), "utf8");
  return given.length === expected.length && timingSafeEqual(given, expected);
}

function parse<T extends z.ZodType>(
  schema: T,
  input: unknown,
): { ok: true; value: z.output<T> } | { ok: false; message: string } {
  const result = schema.safeParse(input);
  if (result.success) return { ok: true, value: result.data };
  const issue = result.error.issues[0];
  const where = issue?.path.length ? `${issue.path.join(".")}: ` : "";
  return { ok: false, message: `${where}${issue?.message ?? "invalid input"}` };
}

function answer<T>(reply: FastifyReply, outcome: Outcome<T>, okStatus = 200) {
  if (!outcome.ok) return sendError(reply, outcome.status, outcome.message);
  return sendJson(reply, okStatus, outcome.value);
}

export function registerAdminRoutes(
  app: FastifyInstance,
  backoffice: Backoffice,
  adminToken: string,
  consoleService: ConsoleService,
): void {
  const expected = Buffer.from(adminToken, "utf8");

  app.register(async (admin) => {
    admin.addHook("onRequest", async (request, reply) => {
      if (!tokenMatches(expected, request.headers.authorization))
        return sendError(reply, 401, "Invalid admin token");
    });

    const body = <T extends z.ZodType>(schema: T, request: FastifyRequest) => {
      const json = parseJsonBody(request);
      if (!json.ok) return { ok: false as const, message: "request body is not valid JSON" };
      return parse(schema, json.value);
    };
    const id = (request: FastifyRequest) => parse(s.idParam, request.params);

    admin.post("/admin/v1/providers", async (request, reply) => {
      const input = body(s.providerCreate, request);
      if (!input.ok) return sendError(reply, 400, input.message);
      return answer(reply, await backoffice.createProvider(input.value), 201);
    });
    admin.get("/admin/v1/providers", async (_request, reply) =>
      sendJson(reply, 200, await backoffice.listProviders()),
    );
    admin.patch("/admin/v1/providers/:id", async (request, reply) => {
      const p = id(request);
      const input = body(s.providerUpdate, request);
      if (!p.ok) return sendError(reply, 400, p.message);
      if (!input.ok) return sendError(reply, 400, input.message);
      return answer(reply, await backoffice.updateProvider(p.value.id, input.value));
    });

    admin.post("/admin/v1/firms", async (request, reply) => {
      const input = body(s.firmCreate, request);
      if (!input.ok) return sendError(reply, 400, input.message);
      return answer(reply, await backoffice.createFirm(input.value), 201);
    });
    admin.get("/admin/v1/firms", async (_request, reply) =>
      sendJson(reply, 200, await backoffice.listFirms()),
    );
    admin.get("/admin/v1/firms/:id", async (request, reply) => {
      const p = id(request);
      if (!p.ok) return sendError(reply, 400, p.message);
      return answer(reply, await backoffice.getFirm(p.value.id));
    });
    admin.patch("/admin/v1/firms/:id", async (request, reply) => {
      const p = id(request);
      const input = body(s.firmUpdate, request);
      if (!p.ok) return sendError(reply, 400, p.message);
      if (!input.ok) return sendError(reply, 400, input.message);
      const { deposits, withdrawals, ...rest } = input.value;
      return answer(
        reply,
        await backoffice.updateFirm(p.value.id, {
          ...rest,
          deposits_open: deposits === undefined ? undefined : deposits === "open",
          withdrawals_open: withdrawals === undefined ? undefined : withdrawals === "open",
        }),
      );
    });
    admin.post("/admin/v1/firms/:id/rotate-secret", async (request, reply) => {
      const p = id(request);
      if (!p.ok) return sendError(reply, 400, p.message);
      return answer(reply, await backoffice.rotateSecret(p.value.id));
    });
    admin.put("/admin/v1/firms/:id/bans", async (request, reply) => {
      const p = id(request);
      const input = body(s.banBody, request);
      if (!p.ok) return sendError(reply, 400, p.message);
      if (!input.ok) return sendError(reply, 400, input.message);
      return answer(reply, await backoffice.banUser(p.value.id, input.value.user_id, true));
    });
    admin.delete("/admin/v1/firms/:id/bans", async (request, reply) => {
      const p = id(request);
      const input = body(s.banBody, request);
      if (!p.ok) return sendError(reply, 400, p.message);
      if (!input.ok) return sendError(reply, 400, input.message);
      return answer(reply, await backoffice.banUser(p.value.id, input.value.user_id, false));
    });

    admin.post("/admin/v1/accounts", async (request, reply) => {
      const input = body(s.accountCreate, request);
      if (!input.ok) return sendError(reply, 400, input.message);
      const { min, max, ...rest } = input.value;
      return answer(reply, await backoffice.addAccount({ ...rest, min_amount: min, max_amount: max }), 201);
    });
    admin.get("/admin/v1/accounts", async (_request, reply) =>
      sendJson(reply, 200, await backoffice.listAccounts()),
    );
    admin.patch("/admin/v1/accounts/:id", async (request, reply) => {
      const p = id(request);
      const input = body(s.accountUpdate, request);
      if (!p.ok) return sendError(reply, 400, p.message);
      if (!input.ok) return sendError(reply, 400, input.message);
      const { min, max, active, channel, bank_code, daily_cap } = input.value;
      return answer(
        reply,
        await backoffice.updateAccount(p.value.id, {
          active,
          min_amount: min,
          max_amount: max,
          channel,
          bank_code,
          daily_cap,
        }),
      );
    });

    admin.post("/admin/v1/channels", async (request, reply) => {
      const input = body(s.channelCreate, request);
      if (!input.ok) return sendError(reply, 400, input.message);
      return answer(reply, await backoffice.createChannel(input.value), 201);
    });
    admin.get("/admin/v1/channels", async (_request, reply) =>
      sendJson(reply, 200, await backoffice.listChannels()),
    );
    admin.patch("/admin/v1/channels/:code", async (request, reply) => {
      const p = parse(s.codeParam, request.params);
      const input = body(s.channelUpdate, request);
      if (!p.ok) return sendError(reply, 400, p.message);
      if (!input.ok) return sendError(reply, 400, input.message);
      return answer(reply, await backoffice.updateChannel(p.value.code, input.value));
    });

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
      const input = body(s.approveBody, request);
      if (!p.ok) return sendError(reply, 400, p.message);
      if (!input.ok) return sendError(reply, 400, input.message);
      const { actor, note, amount } = input.value;
      return answer(
        reply,
        await backoffice.decide(p.value.id, { kind: "approve", note, amountMinor: amount }, actor),
      );
    });
    admin.post("/admin/v1/transactions/:id/reject", async (request, reply) => {
      const p = id(request);
      const input = body(s.rejectBody, request);
      if (!p.ok) return sendError(reply, 400, p.message);
      if (!input.ok) return sendError(reply, 400, input.message);
      const { actor, note } = input.value;
      return answer(reply, await backoffice.decide(p.value.id, { kind: "reject", note }, actor));
    });

    admin.post("/admin/v1/operators", async (request, reply) => {
      const input = body(s.operatorCreate, request);
      if (!input.ok) return sendError(reply, 400, input.message);
      const created = await consoleService.createOperator(
        input.value.email,
        input.value.role,
        input.value.password ?? null,
      );
      return answer(reply, created, 201);
    });

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
      const input = body(s.redeliverFailedBody, request);
      if (!input.ok) return sendError(reply, 400, input.message);
      return answer(reply, await backoffice.redeliverFailedSince(input.value.failed_since));
    });
  });
}
