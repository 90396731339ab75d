/**
 * The payment page's API refuses as the console's does, `{"success": false, "code", "message"}`:
 * page.js translates the code (page-text.js, REFUSAL_WORDS), and the text of a
 * business rejection is the contract's. Statuses come from the two tables: REJECTIONS for business
 * rejections, REFUSAL_STATUS for the rest.
 */
import type { FastifyReply } from "fastify";
import { refusal } from "../domain/refusal.js";
import { sendPlainJson } from "../http/envelope.js";
import { sendRefusal } from "../http/operator-io.js";
import { REJECTIONS } from "../intake/http/rejection-responses.js";
import type { BusinessRejection } from "../intake/rejections.js";

/** A firm at its bound of pending deposits is told "no account", on the page as in the API (ADR 0013). */
type PageRejection = Exclude<BusinessRejection, "pending_bound">;
const pageRejection = (rejection: BusinessRejection): PageRejection =>
  rejection === "pending_bound" ? "no_account" : rejection;

const PAGE_REFUSALS = ["not_found", "too_many_requests", "invalid_json", "invalid_amount"] as const;
type PageRefusal = (typeof PAGE_REFUSALS)[number];

/** Every code the page's API can answer a refusal with: page-text.js has words for each. */
export const PAGE_REFUSAL_CODES: readonly string[] = [
  ...PAGE_REFUSALS,
  ...new Set((Object.keys(REJECTIONS) as BusinessRejection[]).map(pageRejection)),
];

export function sendPageRefusal(reply: FastifyReply, code: PageRefusal, message: string): FastifyReply {
  return sendRefusal(reply, refusal(code, message));
}

export function sendPageRejection(reply: FastifyReply, rejection: BusinessRejection): FastifyReply {
  const { status, message } = REJECTIONS[rejection];
  return sendPlainJson(reply, status, { success: false, code: pageRejection(rejection), message });
}
