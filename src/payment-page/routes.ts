import { readFileSync } from "node:fs";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { RawJson } from "../domain/transaction-view.js";
import { parseJsonBody } from "../http/body.js";
import type { HttpContext } from "../http/context.js";
import { sendError, sendJson } from "../http/envelope.js";
import { transportSecurity } from "../http/transport-security.js";
import { REJECTIONS } from "../intake/http/rejection-responses.js";
import { parsePageAmount } from "../intake/requests.js";
import { addressKey } from "../net/address-key.js";
import { type AccountShown, type HostedSessions, isTokenShaped, type PageState } from "./sessions.js";

/**
 * The hosted payment page and its two page-internal endpoints (docs/hosted-page.md). Unsigned:
 * the token alone opens a session, so answers never say whether a token exists beyond a bare 404,
 * requests are rate limited per token and per client address, and nothing that shows an account is
 * cached or sent with a referrer.
 */
const ASSETS = new URL("./browser/", import.meta.url);
const asset = (name: string) => readFileSync(new URL(name, ASSETS), "utf8");

const PAGE_HEADERS = {
  "cache-control": "no-store",
  "referrer-policy": "no-referrer",
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "content-security-policy":
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; " +
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
};
const PER_TOKEN_PER_SECOND = 10;
/**
 * Many payers share one address behind a mobile carrier's NAT, each open page polling every 3 s
 * (and not at all while hidden): 50/s is some 150 visible pages at once. Guessing tokens stays
 * hopeless at that rate (192-bit tokens); the per-token limit bounds any one page.
 */
const PER_ADDRESS_PER_SECOND = 50;

/** An account to pay into, as both the assigned state and an earlier deposit show it. */
function accountView(account: AccountShown): Record<string, unknown> {
  const shown: Record<string, unknown> = {
    bank_name: account.bankName,
    holder_name: account.holderName,
    iban: account.iban,
    // As in every answer (decisions.md, Values): a JSON number written with 2 decimals, 250.00.
    amount: new RawJson(account.amount),
    // Written in the transfer's description, it lets the bank's statement approve the deposit.
    payment_code: account.paymentCode,
  };
  // Only when auto-cancel will end it: the page tells the payer by when to pay.
  if (account.payBy !== null) shown.pay_by = new Date(account.payBy).toISOString();
  return shown;
}

function view(state: PageState) {
  const return_url = state.returnUrl;
  if (state.status === "open") {
    const open: Record<string, unknown> = {
      status: "open",
      expires_at: new Date(state.expiresAt).toISOString(),
    };
    // Only when set, as JSON numbers with 2 decimals like `amount`.
    if (state.minAmount !== null) open.min_amount = new RawJson(state.minAmount);
    if (state.maxAmount !== null) open.max_amount = new RawJson(state.maxAmount);
    if (state.earlierDeposit !== null) open.earlier_deposit = accountView(state.earlierDeposit);
    open.return_url = return_url;
    return open;
  }
  if (state.status === "expired")
    return state.outcome
      ? { status: "expired", outcome: state.outcome, return_url }
      : { status: "expired", return_url };
  return { status: "assigned", ...accountView(state), return_url };
}

/** What the payment page's routes use. */
export interface PaymentPageContext extends HttpContext {
  hosted: HostedSessions;
}

export function registerHostedRoutes(app: FastifyInstance, ctx: PaymentPageContext): void {
  const html = asset("page.html");
  const js = asset("page.js");
  const text = asset("page-text.js");
  const amount = asset("amount.js");
  const css = asset("page.css");

  /**
   * Rate limits per address (IPv6 per /64: one client picks any address in it), then per token;
   * true after answering 429. The address comes first and
   * a value that cannot be a token gets no bucket of its own: guessing tokens at random costs the
   * guesser its address's limit, never a bucket per guess.
   */
  async function limited(request: FastifyRequest, reply: FastifyReply, token: string): Promise<boolean> {
    let wait = await ctx.rateLimiter.take(`page-ip:${addressKey(request.ip)}`, PER_ADDRESS_PER_SECOND);
    if (wait === 0 && isTokenShaped(token))
      wait = await ctx.rateLimiter.take(`page-token:${token}`, PER_TOKEN_PER_SECOND);
    if (wait === 0) return false;
    reply.header("retry-after", String(wait));
    sendError(reply, 429, "Too many requests");
    return true;
  }

  app.get("/t/:token", async (request, reply) =>
    transportSecurity(request, reply).headers(PAGE_HEADERS).type("text/html; charset=utf-8").send(html),
  );
  // Browsers ask for it on their own with every page (payers' and operators'): no icon, and no 404
  // in their consoles and our metrics.
  app.get("/favicon.ico", async (_request, reply) =>
    reply.code(204).header("cache-control", "public, max-age=86400").send(),
  );
  // page.js is a module: it imports its words from page-text.js and its reading of a typed amount
  // from amount.js (same origin, same headers).
  for (const [name, type, body] of [
    ["page.js", "text/javascript", js],
    ["page-text.js", "text/javascript", text],
    ["amount.js", "text/javascript", amount],
    ["page.css", "text/css", css],
  ] as const) {
    app.get(`/t/assets/${name}`, async (_request, reply) =>
      reply
        .headers(PAGE_HEADERS)
        .header("cache-control", "public, max-age=300")
        .type(`${type}; charset=utf-8`)
        .send(body),
    );
  }

  app.get<{ Params: { token: string } }>("/api/pay/:token", async (request, reply) => {
    reply.headers(PAGE_HEADERS);
    if (await limited(request, reply, request.params.token)) return reply;
    const state = await ctx.hosted.state(request.params.token);
    if (!state) return sendError(reply, 404, "Not found");
    return sendJson(reply, 200, view(state));
  });

  app.post<{ Params: { token: string } }>("/api/pay/:token/deposit", async (request, reply) => {
    reply.headers(PAGE_HEADERS);
    if (await limited(request, reply, request.params.token)) return reply;
    const body = parseJsonBody(request);
    const amount = body.ok
      ? parsePageAmount(body.value)
      : { ok: false as const, message: "Validation failed: request body is not valid JSON" };
    // An unknown token is a 404 before anything else, so bad input reveals nothing either.
    if (!(await ctx.hosted.exists(request.params.token))) return sendError(reply, 404, "Not found");
    if (!amount.ok) return sendError(reply, 400, amount.message);
    const outcome = await ctx.hosted.submit(request.params.token, amount.value);
    if (!outcome.ok) {
      if (outcome.kind === "not_found") return sendError(reply, 404, "Not found");
      if (outcome.kind === "reference_reused") {
        // Hosted mode checks nothing at creation, so only the payer meets this, and cannot fix it:
        // the merchant's integration can, once operators see it (docs/hosted-page.md).
        request.log.warn(
          { reqId: request.id, firmId: outcome.firmId, reference: outcome.reference },
          "hosted page refused an amount: the merchant opened the session with a reference already used",
        );
        ctx.metrics.hostedReferenceReused.inc();
        const duplicate = REJECTIONS.duplicate_reference;
        return sendError(reply, duplicate.status, duplicate.message);
      }
      const rejection = REJECTIONS[outcome.rejection];
      return sendError(reply, rejection.status, rejection.message);
    }
    return sendJson(reply, 200, view(outcome.state));
  });
}
