/** How a payout route is let in, given by the surface that mounts the routes (routes.ts). */
import type { FastifyReply, FastifyRequest } from "fastify";
import type { OperatorRole } from "../../domain/actors.js";

/** Who acts on payouts: the audit's actor, and whether a console session names them for sure. */
export interface PayoutActor {
  actor: string;
  console: boolean;
}

/**
 * Lets a request in (or answers 401/403 itself); `named` is the name the admin API's caller gave
 * (the CLI's --operator), which the console's door ignores.
 */
export type PayoutDoor = (
  request: FastifyRequest,
  reply: FastifyReply,
  needed: OperatorRole,
  named: string | undefined,
) => Promise<PayoutActor | undefined>;
