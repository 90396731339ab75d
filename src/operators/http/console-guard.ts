import type { FastifyReply, FastifyRequest } from "fastify";
import { refusal } from "../../domain/refusal.js";
import { sendRefusal } from "../../http/operator-io.js";
import type { SessionRef } from "../console-sessions.js";
import { type ConsoleOperator, type Role, roleAllows } from "../operator.js";
import type { ConsoleService } from "../service.js";
import { noteActivity } from "./activity.js";
import { sameToken, sessionTokens } from "./console-cookies.js";

/** The operator a console request is made by, and their session. */
export interface SignedIn {
  operator: ConsoleOperator;
  session: SessionRef;
}

/**
 * The session, its CSRF check on changes, and the role; undefined after answering. Where the
 * console requires a second factor, an operator without one may only use the routes that set
 * it up (`setUp`): signing out, the password and the second factor itself.
 */
export type ConsoleGuard = (
  request: FastifyRequest,
  reply: FastifyReply,
  needed: Role,
  setUp?: boolean,
) => Promise<SignedIn | undefined>;

export function consoleGuard(consoleService: ConsoleService): ConsoleGuard {
  return (request, reply, needed, setUp = false) => guard(consoleService, request, reply, needed, setUp);
}

async function guard(
  consoleService: ConsoleService,
  request: FastifyRequest,
  reply: FastifyReply,
  needed: Role,
  setUp: boolean,
): Promise<SignedIn | undefined> {
  const session = await sessionOf(consoleService, request);
  if (!session) return void sendRefusal(reply, refusal("login_required", "Login required"));
  if (request.method !== "GET" && !sameToken(request.headers["x-csrf-token"], session.csrf)) {
    return void sendRefusal(reply, refusal("csrf_failed", "CSRF token missing or wrong"));
  }
  await noteActivity(consoleService, request, reply, session);
  if (!setUp && consoleService.secondFactorRequired && !session.operator.second_factor) {
    const refused = refusal(
      "second_factor_setup_required",
      "Set up two-step sign-in first: this console requires it",
    );
    return void sendRefusal(reply, refused, { second_factor_required: true });
  }
  if (!roleAllows(session.operator.role, needed))
    return void sendRefusal(reply, refusal("role_not_allowed", "Not allowed for your role"));
  return { operator: session.operator, session: session.ref };
}

/**
 * The live session of the request's cookies. Each value of the session cookie's name is tried in
 * turn (at most MAX_SAME_NAME_COOKIES), so that a cookie of that name planted beside the operator's
 * (`payintake_ops=bogus; payintake_ops=<valid>`) cannot shadow it into a 401. A value is never
 * compared with a secret: the store is asked for the session whose SHA-256 it holds, so how long
 * a lookup takes says nothing of how near a guess was.
 */
export async function sessionOf(
  consoleService: ConsoleService,
  request: FastifyRequest,
): Promise<NonNullable<Awaited<ReturnType<ConsoleService["session"]>>> | undefined> {
  for (const token of sessionTokens(request)) {
    const session = await consoleService.session(token);
    if (session) return session;
  }
  return undefined;
}
