/**
 * Providers, firms, bans, accounts, channels and the audit log: the same routes under the admin API (bearer
 * token, /admin/v1) and the console (session and role, /ops/api), each behind its own `access`.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { sendJson } from "../../http/envelope.js";
import { idParam } from "../../http/operator-fields.js";
import { answer, read, readBody } from "../../http/operator-io.js";
import type { Role } from "../../operators/operator.js";
import type { Backoffice } from "../operator-services.js";
import * as s from "./management-schemas.js";

/** Answers 401/403 itself and returns undefined, or returns who is acting, for the audit log. */
export type Access = (
  request: FastifyRequest,
  reply: FastifyReply,
  needed: Role,
) => Promise<string | undefined>;

type Handler = (request: FastifyRequest, reply: FastifyReply, actor: string) => Promise<FastifyReply>;

export function registerManagementRoutes(
  scope: FastifyInstance,
  prefix: string,
  backoffice: Backoffice,
  access: Access,
): void {
  const route = (
    method: "GET" | "POST" | "PATCH" | "PUT" | "DELETE",
    path: string,
    needed: Role,
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
    const q = read(reply, s.auditQuery, request.query);
    if (!q) return reply;
    const f = q;
    const filter = {
      actor: f.actor,
      action: f.action,
      entityType: f.entity_type,
      entityId: f.entity_id,
      from: f.from === undefined ? undefined : Date.parse(f.from),
      to: f.to === undefined ? undefined : Date.parse(f.to),
      limit: f.limit ?? 200,
    };
    return sendJson(reply, 200, await backoffice.audit(filter));
  });

  route("GET", "/providers", "viewer", async (_request, reply) =>
    sendJson(reply, 200, await backoffice.listProviders()),
  );
  route("POST", "/providers", "admin", async (request, reply, actor) => {
    const input = readBody(reply, s.providerCreate, request);
    if (!input) return reply;
    return answer(reply, await backoffice.createProvider(input, actor), 201);
  });
  route("PATCH", "/providers/:id", "admin", async (request, reply, actor) => {
    const p = id(request, reply);
    if (!p) return reply;
    const input = readBody(reply, s.providerUpdate, request);
    if (!input) return reply;
    return answer(reply, await backoffice.updateProvider(p.id, input, actor));
  });

  route("GET", "/firms", "viewer", async (_request, reply) =>
    sendJson(reply, 200, await backoffice.listFirms()),
  );
  route("POST", "/firms", "admin", async (request, reply, actor) => {
    const input = readBody(reply, s.firmCreate, request);
    if (!input) return reply;
    return answer(reply, await backoffice.createFirm(input, actor), 201);
  });
  route("GET", "/firms/:id", "viewer", async (request, reply) => {
    const p = id(request, reply);
    if (!p) return reply;
    return answer(reply, await backoffice.getFirm(p.id));
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
    return answer(reply, await backoffice.updateFirm(p.id, changes, actor));
  });
  route("POST", "/firms/:id/rotate-secret", "admin", async (request, reply, actor) => {
    const p = id(request, reply);
    if (!p) return reply;
    return answer(reply, await backoffice.rotateSecret(p.id, actor));
  });

  route("GET", "/firms/:id/bans", "viewer", async (request, reply) => {
    const p = id(request, reply);
    if (!p) return reply;
    return answer(reply, await backoffice.listBans(p.id));
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
      return answer(reply, await backoffice.banUser(p.id, input.user_id, banned, actor));
    });
  }

  route("GET", "/accounts", "viewer", async (_request, reply) =>
    sendJson(reply, 200, await backoffice.listAccounts()),
  );
  route("POST", "/accounts", "admin", async (request, reply, actor) => {
    const input = readBody(reply, s.accountCreate, request);
    if (!input) return reply;
    const { min, max, ...rest } = input;
    return answer(
      reply,
      await backoffice.addAccount({ ...rest, min_amount: min, max_amount: max }, actor),
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
      await backoffice.updateAccount(p.id, { ...rest, min_amount: min, max_amount: max }, actor),
    );
  });

  route("GET", "/channels", "viewer", async (_request, reply) =>
    sendJson(reply, 200, await backoffice.listChannels()),
  );
  route("POST", "/channels", "admin", async (request, reply, actor) => {
    const input = readBody(reply, s.channelCreate, request);
    if (!input) return reply;
    return answer(reply, await backoffice.createChannel(input, actor), 201);
  });
  route("PATCH", "/channels/:code", "admin", async (request, reply, actor) => {
    const p = read(reply, s.codeParam, request.params);
    if (!p) return reply;
    const input = readBody(reply, s.channelUpdate, request);
    if (!input) return reply;
    return answer(reply, await backoffice.updateChannel(p.code, input, actor));
  });
  route("POST", "/channels/:code/rotate-secret", "admin", async (request, reply, actor) => {
    const p = read(reply, s.codeParam, request.params);
    if (!p) return reply;
    return answer(reply, await backoffice.rotateChannelSecret(p.code, actor));
  });
}
