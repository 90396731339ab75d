/**
 * How the console's API tells the operator's activity from the page's own traffic (operators/idle.ts).
 * Every change is the operator's. A read is the operator's only when the page marks it with
 * `X-Operator-Active: 1`, which it does when the operator typed, clicked or tapped in it a moment
 * before (web/console/idle.tsx): unmarked, a read is background (the live stream, which a browser
 * cannot even mark, the summary's poll, the queue's refreshes). Reads are unmarked by default so
 * that a refresh someone adds later cannot keep an unattended console signed in.
 */
import type { FastifyReply, FastifyRequest } from "fastify";
import type { ConsoleService } from "../service.js";

export const OPERATOR_ACTIVE_HEADER = "x-operator-active";
/** On every answer of a live session: whole seconds left before it ends for want of activity. */
export const IDLE_LEFT_HEADER = "x-session-idle-left";
/** And whole seconds before it ends whatever the operator does (12 hours from sign-in). */
export const ENDS_IN_HEADER = "x-session-ends-in";

export function isOperatorActivity(request: FastifyRequest): boolean {
  const read = request.method === "GET" || request.method === "HEAD";
  return !read || request.headers[OPERATOR_ACTIVE_HEADER] === "1";
}

/** Records the request's activity, if it is the operator's, and tells the page the times left. */
export async function noteActivity(
  consoleService: ConsoleService,
  request: FastifyRequest,
  reply: FastifyReply,
  session: Parameters<ConsoleService["activity"]>[0],
): Promise<void> {
  const { idleLeftMs, endsInMs } = await consoleService.activity(session, isOperatorActivity(request));
  reply.header(IDLE_LEFT_HEADER, String(Math.floor(idleLeftMs / 1000)));
  reply.header(ENDS_IN_HEADER, String(Math.floor(endsInMs / 1000)));
}
