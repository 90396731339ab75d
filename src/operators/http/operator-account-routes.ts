import type { FastifyInstance } from "fastify";
import { operatorActor } from "../../domain/actors.js";
import { sendError, sendJson } from "../../http/envelope.js";
import { idParam } from "../../http/operator-fields.js";
import { answer, parse, parseBody } from "../../http/operator-io.js";
import type { ConsoleService } from "../service.js";
import type { ConsoleGuard } from "./console-guard.js";
import { operatorCreate, operatorUpdate } from "./operator-schemas.js";

/** The operators' accounts, as an admin keeps them in the console: list, add, change. */
export function registerOperatorAccountRoutes(
  ops: FastifyInstance,
  consoleService: ConsoleService,
  guard: ConsoleGuard,
) {
  ops.get("/ops/api/operators", async (request, reply) => {
    if (!(await guard(request, reply, "admin"))) return reply;
    return sendJson(reply, 200, await consoleService.listOperators());
  });
  ops.post("/ops/api/operators", async (request, reply) => {
    const who = await guard(request, reply, "admin");
    if (!who) return reply;
    const input = parseBody(operatorCreate, request);
    if (!input.ok) return sendError(reply, 400, input.message);
    const { email, role, password } = input.value;
    const actor = operatorActor(who.operator.email);
    return answer(reply, await consoleService.createOperator(email, role, password ?? null, actor), 201);
  });
  ops.patch("/ops/api/operators/:id", async (request, reply) => {
    const who = await guard(request, reply, "admin");
    if (!who) return reply;
    const p = parse(idParam, request.params);
    const input = parseBody(operatorUpdate, request);
    if (!p.ok) return sendError(reply, 400, p.message);
    if (!input.ok) return sendError(reply, 400, input.message);
    const actor = operatorActor(who.operator.email);
    return answer(reply, await consoleService.updateOperator(who.operator, p.value.id, input.value, actor));
  });
}
