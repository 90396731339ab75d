/**
 * Providers, firms, bans, accounts, channels and the audit log: the same routes under the admin API (bearer
 * token, /admin/v1) and the console (session and role, /ops/api), each behind its own `access`.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { OperatorRole } from "../../domain/actors.js";
import { sendJson } from "../../http/envelope.js";
import type { OperatorDoor } from "../../http/operator-door.js";
import { idParam } from "../../http/operator-fields.js";
import { answer, read, readBody } from "../../http/operator-io.js";
import type { AuditFilter } from "../../store/audited.js";
import type { Management } from "../service.js";
import * as s from "./schemas.js";

/** Who is acting, as the audit log names them (`admin-api`, `operator:<email>`). */
export type Access = OperatorDoor<string>;

/** The audit log, every part's changes: the surfaces' (backoffice/operator-services.ts, `audit`). */
export type AuditLog = (filter: AuditFilter) => Promise<unknown[]>;

type Handler = (request: FastifyRequest, reply: FastifyReply, actor: string) => Promise<FastifyReply>;
type Route = (
  method: "GET" | "POST" | "PATCH" | "PUT" | "DELETE",
  path: string,
  needed: OperatorRole,
  handler: Handler,
) => unknown;
type IdOf = (request: FastifyRequest, reply: FastifyReply) => { id: number } | undefined;

export function registerManagementRoutes(
  scope: FastifyInstance,
  prefix: string,
  { management, audit }: { management: Management; audit: AuditLog },
  access: Access,
): void {
  const route = (
    method: "GET" | "POST" | "PATCH" | "PUT" | "DELETE",
    path: string,
    needed: OperatorRole,
    handler: Handler,
  ) =>
    scope.route({
      method,
      url: `${prefix}${path}`,
      handler: async (request, reply) => {
        const actor = await access(request, reply, needed);
        return actor === undefined ? reply : handler(request, reply, actor);
      },
    });
  const id = (request: FastifyRequest, reply: FastifyReply) => read(reply, idParam, request.params);

  route("GET", "/audit", "viewer", async (request, reply) => {
    const f = read(reply, s.auditQuery, request.query);
    if (!f) return reply;
    const filter = {
      actor: f.actor,
      action: f.action,
      entityType: f.entity_type,
      entityId: f.entity_id,
      from: f.from === undefined ? undefined : Date.parse(f.from),
      to: f.to === undefined ? undefined : Date.parse(f.to),
      limit: f.limit ?? 200,
    };
    return sendJson(reply, 200, await audit(filter));
  });

  route("GET", "/providers", "viewer", async (_request, reply) =>
    sendJson(reply, 200, await management.listProviders()),
  );
  route("POST", "/providers", "admin", async (request, reply, actor) => {
    const input = readBody(reply, s.providerCreate, request);
    if (!input) return reply;
    return answer(reply, await management.createProvider(input, actor), 201);
  });
  route("PATCH", "/providers/:id", "admin", async (request, reply, actor) => {
    const p = id(request, reply);
    if (!p) return reply;
    const input = readBody(reply, s.providerUpdate, request);
    if (!input) return reply;
    return answer(reply, await management.updateProvider(p.id, input, actor));
  });

  registerFirmRoutes(route, management, id);

  route("GET", "/accounts", "viewer", async (_request, reply) =>
    sendJson(reply, 200, await management.listAccounts()),
  );
  route("POST", "/accounts", "admin", async (request, reply, actor) => {
    const input = readBody(reply, s.accountCreate, request);
    if (!input) return reply;
    const { min, max, ...rest } = input;
    return answer(
      reply,
      await management.addAccount({ ...rest, min_amount: min, max_amount: max }, actor),
      201,
    );
  });
  route("PATCH", "/accounts/:id", "admin", async (request, reply, actor) => {
    const p = id(request, reply);
    if (!p) return reply;
    const input = readBody(reply, s.accountUpdate, request);
    if (!input) return reply;
    const { min, max, ...rest } = input;
    return answer(
      reply,
      await management.updateAccount(p.id, { ...rest, min_amount: min, max_amount: max }, actor),
    );
  });

  route("GET", "/channels", "viewer", async (_request, reply) =>
    sendJson(reply, 200, await management.listChannels()),
  );
  route("POST", "/channels", "admin", async (request, reply, actor) => {
    const input = readBody(reply, s.channelCreate, request);
    if (!input) return reply;
    return answer(reply, await management.createChannel(input, actor), 201);
  });
  route("PATCH", "/channels/:code", "admin", async (request, reply, actor) => {
    const p = read(reply, s.codeParam, request.params);
    if (!p) return reply;
    const input = readBody(reply, s.channelUpdate, request);
    if (!input) return reply;
    return answer(reply, await management.updateChannel(p.code, input, actor));
  });
  route("POST", "/channels/:code/rotate-secret", "admin", async (request, reply, actor) => {
    const p = read(reply, s.codeParam, request.params);
    if (!p) return reply;
    return answer(reply, await management.rotateChannelSecret(p.code, actor));
  });
}

/** Firms: their settings, secrets, callbacks moved after a webhook change, and their banned users. */
function registerFirmRoutes(route: Route, management: Management, id: IdOf): void {
  route("GET", "/firms", "viewer", async (_request, reply) =>
    sendJson(reply, 200, await management.listFirms()),
  );
  route("POST", "/firms", "admin", async (request, reply, actor) => {
    const input = readBody(reply, s.firmCreate, request);
    if (!input) return reply;
    return answer(reply, await management.createFirm(input, actor), 201);
  });
  route("GET", "/firms/:id", "viewer", async (request, reply) => {
    const p = id(request, reply);
    if (!p) return reply;
    return answer(reply, await management.getFirm(p.id));
  });
  route("PATCH", "/firms/:id", "admin", async (request, reply, actor) => {
    const p = id(request, reply);
    if (!p) return reply;
    const input = readBody(reply, s.firmUpdate, request);
    if (!input) return reply;
    const { deposits, withdrawals, ...rest } = input;
    const changes = {
      ...rest,
      deposits_open: deposits === undefined ? undefined : deposits === "open",
      withdrawals_open: withdrawals === undefined ? undefined : withdrawals === "open",
    };
    return answer(reply, await management.updateFirm(p.id, changes, actor));
  });
  route("POST", "/firms/:id/move-callbacks", "admin", async (request, reply, actor) => {
    const p = id(request, reply);
    if (!p) return reply;
    const input = readBody(reply, s.callbackMove, request);
    if (!input) return reply;
    return answer(reply, await management.moveCallbacks(p.id, input.from, actor));
  });
  route("POST", "/firms/:id/rotate-secret", "admin", async (request, reply, actor) => {
    const p = id(request, reply);
    if (!p) return reply;
    return answer(reply, await management.rotateSecret(p.id, actor));
  });

  route("GET", "/firms/:id/bans", "viewer", async (request, reply) => {
    const p = id(request, reply);
    if (!p) return reply;
    return answer(reply, await management.listBans(p.id));
  });
  for (const [method, banned] of [
    ["PUT", true],
    ["DELETE", false],
  ] as const) {
    route(method, "/firms/:id/bans", "operator", async (request, reply, actor) => {
      const p = id(request, reply);
      if (!p) return reply;
      const input = readBody(reply, s.banBody, request);
      if (!input) return reply;
      return answer(reply, await management.banUser(p.id, input.user_id, banned, actor));
    });
  }
}
