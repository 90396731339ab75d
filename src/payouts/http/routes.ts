/**
 * Payouts' routes, the same under the admin API (/admin/v1, the CLI) and the console (/ops/api),
 * each behind its surface's door. The door says who acts and whether a signed-in console operator
 * does: only one of those can be the second person of the two-person rule.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { OperatorRole } from "../../domain/actors.js";
import type { PayoutScope, ScopeSettings } from "../../domain/payout-settings.js";
import { refusal } from "../../domain/refusal.js";
import { parseJsonBody } from "../../http/body.js";
import { sendJson } from "../../http/envelope.js";
import { answer, read, readBody, readId, sendRefusal } from "../../http/operator-io.js";
import type { PayoutService } from "../service.js";
import type { PayoutActor, PayoutDoor } from "./door.js";
import { type PayoutRelease, registerReleaseRoute } from "./release-routes.js";
import * as s from "./schemas.js";
import { registerTemplateRoutes } from "./template-routes.js";

export type { PayoutActor, PayoutDoor } from "./door.js";

type Handler = (request: FastifyRequest, reply: FastifyReply, who: PayoutActor) => Promise<FastifyReply>;
type Named = (request: FastifyRequest) => string | undefined;
type Guarded = (
  needed: OperatorRole,
  handler: Handler,
  name?: Named,
) => (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply>;

const actorIn = (input: unknown) => (input as { actor?: unknown } | null)?.actor;
const asName = (v: unknown) => (typeof v === "string" ? v : undefined);
const bodyActor: Named = (r) => {
  const json = parseJsonBody(r);
  return json.ok ? asName(actorIn(json.value)) : undefined;
};
const queryActor: Named = (r) => asName(actorIn(r.query));

/** A move's body is optional: no body is no note. */
const emptyBody = (request: FastifyRequest) => !Buffer.isBuffer(request.body) || request.body.length === 0;

export function registerPayoutRoutes(
  app: FastifyInstance,
  prefix: string,
  payouts: PayoutService & PayoutRelease,
  door: PayoutDoor,
) {
  const guarded: Guarded =
    (needed, handler, name = () => undefined) =>
    async (request, reply) => {
      const who = await door(request, reply, needed, name(request));
      return who ? handler(request, reply, who) : reply;
    };
  const p = `${prefix}/payouts`;
  registerBatchRoutes(app, p, payouts, guarded);
  registerFileRoute(app, p, payouts, guarded);
  registerSettingsRoutes(app, p, payouts, guarded);
  registerTemplateRoutes(app, p, payouts, door);
  registerReleaseRoute(app, p, payouts, guarded, bodyActor);
}

function registerBatchRoutes(app: FastifyInstance, p: string, payouts: PayoutService, guarded: Guarded) {
  app.get(
    `${p}/waiting`,
    guarded("viewer", async (request, reply) => {
      const q = read(reply, s.waitingQuery, request.query);
      if (!q) return reply;
      const filter = { firmId: q.firm, accountId: q.account, limit: q.limit ?? 500 };
      return answer(reply, await payouts.waiting(filter));
    }),
  );
  app.get(
    `${p}/flagged`,
    guarded("viewer", async (request, reply) => {
      const q = read(reply, s.flaggedQuery, request.query);
      if (!q) return reply;
      return sendJson(reply, 200, await payouts.flagged(q.limit ?? 200));
    }),
  );
  app.post(
    `${p}/attempts/:id/clear-flag`,
    guarded(
      "operator",
      async (request, reply, who) => {
        const id = readId(reply, request.params);
        if (id === undefined) return reply;
        const body = readBody(reply, s.flagClear, request);
        if (!body) return reply;
        return answer(reply, await payouts.clearFlag(id, body.flag, who.actor, body.note ?? null));
      },
      bodyActor,
    ),
  );
  app.post(
    `${p}/batches`,
    guarded(
      "operator",
      async (request, reply, who) => {
        const body = readBody(reply, s.batchCreate, request);
        if (!body) return reply;
        const request_ = { accountId: body.account, firmId: body.firm, maxCount: body.max_count };
        return answer(reply, await payouts.createBatch(request_, who.actor), 201);
      },
      bodyActor,
    ),
  );
  app.get(
    `${p}/batches`,
    guarded("viewer", async (request, reply) => {
      const q = read(reply, s.batchList, request.query);
      if (!q) return reply;
      return sendJson(reply, 200, await payouts.list({ stage: q.stage, limit: q.limit ?? 100 }));
    }),
  );
  app.get(
    `${p}/batches/:id`,
    guarded("viewer", async (request, reply) => {
      const id = readId(reply, request.params);
      return id === undefined ? reply : answer(reply, await payouts.show(id));
    }),
  );
  for (const move of ["approve", "sent", "cancel"] as const) {
    app.post(`${p}/batches/:id/${move}`, guarded("operator", moveHandler(payouts, move), bodyActor));
  }
}

function moveHandler(payouts: PayoutService, move: "approve" | "sent" | "cancel"): Handler {
  return async (request, reply, who) => {
    const id = readId(reply, request.params);
    if (id === undefined) return reply;
    const body = emptyBody(request) ? {} : readBody(reply, s.batchMove, request);
    if (!body) return reply;
    if (move === "approve") {
      const approver = who.console
        ? { kind: "console" as const, actor: who.actor }
        : { kind: "admin_api" as const };
      return answer(reply, await payouts.approve(id, approver));
    }
    if (move === "sent") return answer(reply, await payouts.markSent(id, who.actor));
    return answer(reply, await payouts.cancel(id, who.actor, body.note ?? null));
  };
}

/** The batch's bank file, as bytes to save; what the operator must know comes in a header. */
function registerFileRoute(app: FastifyInstance, p: string, payouts: PayoutService, guarded: Guarded) {
  app.get(
    `${p}/batches/:id/file`,
    guarded(
      "operator",
      async (request, reply, who) => {
        const id = readId(reply, request.params);
        if (id === undefined) return reply;
        const q = read(reply, s.fileQuery, request.query);
        if (!q) return reply;
        const file = await payouts.file(id, q.format, who.actor);
        if (!file.ok) return sendRefusal(reply, file);
        const { fileName, contentType, chunks, notices } = file.value;
        reply.header("content-type", contentType);
        reply.header("content-disposition", `attachment; filename="${fileName}"`);
        reply.header("cache-control", "no-store");
        if (notices.length > 0) reply.header("x-payout-notices", encodeURIComponent(JSON.stringify(notices)));
        return reply.send(Buffer.concat([...chunks]));
      },
      queryActor,
    ),
  );
}

function scopeOf(q: { firm?: number | undefined; account?: number | undefined }): PayoutScope | undefined {
  if (q.firm !== undefined && q.account !== undefined) return undefined;
  if (q.firm !== undefined) return { kind: "firm", id: q.firm };
  if (q.account !== undefined) return { kind: "account", id: q.account };
  return { kind: "all" };
}

const oneScope = refusal("invalid_input", "firm or account, not both");

function changeOf(body: NonNullable<ReturnType<typeof s.settingsBody.parse>>): ScopeSettings {
  const change: ScopeSettings = {};
  if (body.payouts !== undefined) change.payouts = body.payouts;
  if (body.two_person_batch_above !== undefined) change.twoPersonBatchAbove = body.two_person_batch_above;
  if (body.two_person_payout_above !== undefined) change.twoPersonPayoutAbove = body.two_person_payout_above;
  if (body.two_person_day_above !== undefined) change.twoPersonDayAbove = body.two_person_day_above;
  if (body.channel_final_approves !== undefined) change.channelFinalApproves = body.channel_final_approves;
  if (body.fast_limit !== undefined) change.fastLimit = body.fast_limit;
  if (body.balance_guard !== undefined) change.balanceGuard = body.balance_guard;
  return change;
}

/** The settings an admin sets per scope (`payintake payout settings`). */
function registerSettingsRoutes(app: FastifyInstance, p: string, payouts: PayoutService, guarded: Guarded) {
  app.get(
    `${p}/settings`,
    guarded("viewer", async (request, reply) => {
      const q = read(reply, s.scopeQuery, request.query);
      if (!q) return reply;
      const scope = scopeOf(q);
      return scope ? answer(reply, await payouts.settings(scope)) : sendRefusal(reply, oneScope);
    }),
  );
  app.patch(
    `${p}/settings`,
    guarded(
      "admin",
      async (request, reply, who) => {
        const body = readBody(reply, s.settingsBody, request);
        if (!body) return reply;
        const scope = scopeOf(body);
        if (!scope) return sendRefusal(reply, oneScope);
        return answer(reply, await payouts.updateSettings(scope, changeOf(body), who.actor));
      },
      bodyActor,
    ),
  );
}
