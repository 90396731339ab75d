import type { FastifyReply, FastifyRequest } from "fastify";
import type { Firm } from "../../domain/firm.js";
import { parseJsonBody } from "../../http/body.js";
import type { BusinessFacts } from "../../store/transactions/transactions.js";
import { IGNORED_FIELDS_HEADER, ignoredFieldsHeader } from "../ignored-fields.js";
import type { Parsed, PayerFields } from "../requests.js";
import { refuseAuthentication } from "./auth-refusals.js";
import { NONCE_REUSED, verifyRequest } from "./authenticate.js";
import { resolveCallback } from "./common.js";
import type { IntakeContext } from "./context.js";
import { sendMerchantRefusal } from "./rejection-responses.js";

export interface Admitted<T> {
  firm: Firm;
  callbackUrl: string;
  request: T;
  /** The business facts, read in the same round trip as the nonce; null when none were needed. */
  facts: BusinessFacts | null;
}

/**
 * Steps 1 to 3 of the order of checks for POST deposits and withdrawals: authentication, callback
 * URL, request body. The answer follows that order exactly; the work does not have to: the body is
 * parsed and the callback URL resolved before the nonce is used up, so that a valid request uses up
 * its nonce and reads its business facts in one database round trip. A request that fails a later
 * check still uses up its nonce first, as decisions.md requires. Undefined after answering.
 */
export async function admit<T>(
  ctx: IntakeContext,
  request: FastifyRequest,
  reply: FastifyReply,
  parse: (body: unknown) => Parsed<T>,
  factsFor: (req: T) => { reference: string; userId: string; type: "deposit" | "withdrawal" } | null,
): Promise<Admitted<T> | undefined> {
  const verified = await verifyRequest(ctx, request, reply);
  if (!verified) return undefined;
  const { firm, nonce } = verified;
  const callback = await resolveCallback(ctx, firm, request);
  const body = parseJsonBody(request);
  const parsed = body.ok ? parse(body.value) : undefined;
  const key = callback.ok && parsed?.ok ? factsFor(parsed.value) : null;

  let facts: BusinessFacts | null = null;
  if (key) {
    const read = await ctx.repos.transactions.nonceAndFacts(
      { firmId: firm.id, nonce: nonce.value, expiresAt: nonce.expiresAt },
      key,
    );
    if (!read.nonceFresh) return refuseAuthentication(request, reply, firm, NONCE_REUSED);
    facts = read.facts;
  } else if (!(await ctx.repos.nonces.record(firm.id, nonce.value, nonce.expiresAt))) {
    return refuseAuthentication(request, reply, firm, NONCE_REUSED);
  }

  if (!callback.ok) return void sendMerchantRefusal(reply, "invalid_request", callback.message);
  if (!parsed) return void sendMerchantRefusal(reply, "invalid_json");
  if (!parsed.ok) return void sendMerchantRefusal(reply, "invalid_request", parsed.message);
  return { firm, callbackUrl: callback.url, request: parsed.value, facts };
}

/**
 * A test firm's answer names the fields its request sent that the API ignored, whatever the outcome
 * (the body stays the contract's): an integrator sees a misspelt `returnUrl` while building. A live
 * firm's answers carry no header the contract does not name; its operators see the names in the
 * transaction's detail.
 */
export function tellIgnoredFields(reply: FastifyReply, firm: Firm, req: PayerFields): void {
  if (firm.sandbox && req.ignoredFields !== null) {
    reply.header(IGNORED_FIELDS_HEADER, ignoredFieldsHeader(req.ignoredFields));
  }
}
