import type { FastifyInstance } from "fastify";
import { operatorActor } from "../../domain/actors.js";
import { sendJson } from "../../http/envelope.js";
import { idParam } from "../../http/operator-fields.js";
import { answer, read, readBody } from "../../http/operator-io.js";
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
    const input = readBody(reply, operatorCreate, request);
    if (!input) return reply;
    const { email, role, password } = input;
    const actor = operatorActor(who.operator.email);
    return answer(reply, await consoleService.createOperator(email, role, password ?? null, actor), 201);
  });
  ops.patch("/ops/api/operators/:id", async (request, reply) => {
    const who = await guard(request, reply, "admin");
    if (!who) return reply;
    const p = read(reply, idParam, request.params);
    if (!p) return reply;
    const input = readBody(reply, operatorUpdate, request);
    if (!input) return reply;
    const actor = operatorActor(who.operator.email);
    return answer(reply, await consoleService.updateOperator(who.operator, p.id, input, actor));
  });
}
