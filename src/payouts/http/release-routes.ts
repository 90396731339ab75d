/**
 * `POST {prefix}/payouts/batches/:id/release`: the batch marked sent and its payouts sent through
 * its paying account's payout channel (payouts/channel-release.ts), under the admin API and the
 * console alike. Answers the batch with its payouts and what each channel answer did, counted.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { OperatorRole } from "../../domain/actors.js";
import type { Outcome } from "../../domain/refusal.js";
import { answer, readBody, readId } from "../../http/operator-io.js";
import type { ReleaseView } from "../channel-release.js";
import * as s from "./schemas.js";

/** What the release route needs of the payouts' service (the backoffice adds it beside the rest). */
export interface PayoutRelease {
  release(batchId: number, actor: string): Promise<Outcome<ReleaseView>>;
}

/** Who acts, as routes.ts's door names them (only the name is needed here). */
type Actor = { actor: string };

type Guarded = (
  needed: OperatorRole,
  handler: (request: FastifyRequest, reply: FastifyReply, who: Actor) => Promise<FastifyReply>,
  name?: (request: FastifyRequest) => string | undefined,
) => (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply>;

const emptyBody = (request: FastifyRequest) => !Buffer.isBuffer(request.body) || request.body.length === 0;

export function registerReleaseRoute(
  app: FastifyInstance,
  p: string,
  payouts: PayoutRelease,
  guarded: Guarded,
  named: (request: FastifyRequest) => string | undefined,
) {
  app.post(
    `${p}/batches/:id/release`,
    guarded(
      "operator",
      async (request, reply, who) => {
        const id = readId(reply, request.params);
        if (id === undefined) return reply;
        if (!emptyBody(request) && !readBody(reply, s.batchMove, request)) return reply;
        return answer(reply, await payouts.release(id, who.actor));
      },
      named,
    ),
  );
}
