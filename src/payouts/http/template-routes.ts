/** Bank templates: listed for anyone who makes files, added (as JSON) by an admin. */
import type { FastifyInstance } from "fastify";
import { refusal } from "../../domain/refusal.js";
import { parseJsonBody } from "../../http/body.js";
import { sendJson } from "../../http/envelope.js";
import { answer, sendRefusal } from "../../http/operator-io.js";
import type { PayoutService } from "../service.js";
import type { PayoutDoor } from "./door.js";

export function registerTemplateRoutes(
  app: FastifyInstance,
  p: string,
  payouts: Pick<PayoutService, "templates" | "addTemplate">,
  door: PayoutDoor,
) {
  app.get(`${p}/templates`, async (request, reply) => {
    if (!(await door(request, reply, "viewer", undefined))) return reply;
    return sendJson(reply, 200, await payouts.templates());
  });
  app.post(`${p}/templates`, async (request, reply) => {
    // The body is the template as written; the admin API's caller names who acts in the query.
    const named = (request.query as { actor?: unknown } | undefined)?.actor;
    const who = await door(request, reply, "admin", typeof named === "string" ? named : undefined);
    if (!who) return reply;
    const json = parseJsonBody(request);
    if (!json.ok || typeof json.value !== "object" || json.value === null || Array.isArray(json.value))
      return sendRefusal(reply, refusal("invalid_json", "request body is not a JSON object"));
    return answer(reply, await payouts.addTemplate(json.value, who.actor), 201);
  });
}
