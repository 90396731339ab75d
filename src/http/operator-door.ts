/**
 * How an operator's route is let in, given by the surface that mounts it (backoffice/): the
 * console's session, CSRF check and role, or the admin API's token. A part's routes name the
 * role they need and what they need to know of who acts, and know nothing of sessions or tokens.
 */
import type { FastifyReply, FastifyRequest } from "fastify";
import type { OperatorRole } from "../domain/actors.js";

/** Answers 401/403 itself and returns undefined, or who acts. */
export type OperatorDoor<Who> = (
  request: FastifyRequest,
  reply: FastifyReply,
  needed: OperatorRole,
) => Promise<Who | undefined>;

/** An operator signed in to the console, as their routes need them: who, and in what role. */
export interface ActingOperator {
  email: string;
  role: OperatorRole;
}
