/**
 * `GET /admin/v1/accounts/{id}/statement-sample?format=camt053|mt940`: a sample statement for a
 * development store (reconciliation/sample-request.ts). The admin API's only: it names payment
 * codes, which prove deposits, so it asks the operator role, as importing a statement does.
 */
import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { sendJson } from "../../http/envelope.js";
import { idParam } from "../../http/operator-fields.js";
import { read, sendRefusal } from "../../http/operator-io.js";
import type { ReconcileDeps } from "../import.js";
import { statementSample } from "../sample-request.js";
import { SAMPLE_FORMATS } from "../sample-statement.js";
import type { LineAccess } from "./line-routes.js";

const sampleQuery = z.strictObject({ format: z.enum(SAMPLE_FORMATS).default("camt053") });

export function registerSampleRoute(
  scope: FastifyInstance,
  prefix: string,
  deps: ReconcileDeps,
  access: LineAccess,
): void {
  scope.get(`${prefix}/accounts/:id/statement-sample`, async (request, reply) => {
    if (!(await access(request, reply, "operator"))) return reply;
    const p = read(reply, idParam, request.params);
    if (!p) return reply;
    const q = read(reply, sampleQuery, request.query);
    if (!q) return reply;
    const sample = await statementSample(deps, p.id, q.format);
    return sample.ok ? sendJson(reply, 200, sample.value) : sendRefusal(reply, sample);
  });
}
