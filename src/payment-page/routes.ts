/**
 * The hosted payment page and its two page-internal endpoints (docs/hosted-page.md). Unsigned:
 * the token alone opens a session, so answers never say whether a token exists beyond a bare 404,
 * requests are rate limited per token and per client address, and nothing that shows an account is
 * cached or sent with a referrer.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { RawJson, toJson } from "../domain/transaction-view.js";
import { parseJsonBody } from "../http/body.js";
import type { HttpContext } from "../http/context.js";
import { sendJson } from "../http/envelope.js";
import { transportSecurity } from "../http/transport-security.js";
import { parsePageAmount } from "../intake/requests.js";
import { addressKey } from "../net/address-key.js";
import {
  chooseEncoding,
  isAssetName,
  loadPageAssets,
  type PageAssets,
  type PageFile,
  statusBlock,
} from "./assets.js";
import { qrSvg } from "./qr.js";
import { sendPageRefusal, sendPageRejection } from "./refusals.js";
import { type AccountShown, type HostedSessions, isTokenShaped, type PageState } from "./sessions.js";

/** `styleHash`: the page's one stylesheet, inline in its HTML, and no other style (assets.ts). */
const pageHeaders = (styleHash: string) => ({
  "cache-control": "no-store",
  "referrer-policy": "no-referrer",
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "content-security-policy":
    `default-src 'none'; script-src 'self'; style-src ${styleHash}; connect-src 'self'; img-src 'self'; ` +
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
});
type PageHeaders = ReturnType<typeof pageHeaders>;
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
      merchant_name: state.merchantName,
      expires_at: new Date(state.expiresAt).toISOString(),
    };
    // Only when set, as JSON numbers with 2 decimals like `amount`.
    if (state.minAmount !== null) open.min_amount = new RawJson(state.minAmount);
    if (state.maxAmount !== null) open.max_amount = new RawJson(state.maxAmount);
    if (state.usualMaxAmount !== null) open.usual_max_amount = new RawJson(state.usualMaxAmount);
    if (state.earlierDeposit !== null) open.earlier_deposit = accountView(state.earlierDeposit);
    open.return_url = return_url;
    return open;
  }
  if (state.status === "expired")
    return state.outcome
      ? { status: "expired", outcome: state.outcome, return_url }
      : { status: "expired", return_url };
  // The merchant's reference and the deposit's time: the receipt the page shows once it is approved
  // is made of them (and of the merchant's name), and a rejected one names the reference to quote to
  // the merchant. Never in the expired answer: that one says how it ended and nothing else (the
  // contract).
  return {
    status: "assigned",
    merchant_name: state.merchantName,
    ...accountView(state),
    reference: state.reference,
    created_at: new Date(state.createdAt).toISOString(),
    return_url,
  };
}

/** A year: the versioned files' content never changes under their path (assets.ts). */
const FOR_GOOD = "public, max-age=31536000, immutable";

/** Sends a page file compressed as the browser takes it; its cache-control is the caller's. */
async function sendFile(request: FastifyRequest, reply: FastifyReply, file: PageFile) {
  const encoding = chooseEncoding(request.headers["accept-encoding"]);
  reply.header("vary", "accept-encoding").type(file.type);
  if (encoding !== "identity") reply.header("content-encoding", encoding);
  return reply.send(await file.encoded(encoding));
}

/**
 * The status to put in the page for `token`: what `GET /api/pay/:token` would answer (`null` for
 * its 404), or undefined when the page goes without it (page.js then asks for it).
 */
type StatusFor = (request: FastifyRequest, token: string) => Promise<unknown | undefined>;

/**
 * The page and its files. The page carries its session's status, so that the first screen needs
 * no round trip of its own. Under the current version a file is cached for good; under another one
 * (an HTML page from the release before, during a rolling deploy) it is answered with this
 * release's file and not cached; unversioned, likewise.
 */
function registerPageFiles(
  app: FastifyInstance,
  assets: PageAssets,
  headers: PageHeaders,
  statusFor: StatusFor,
): void {
  app.get<{ Params: { token: string } }>("/t/:token", async (request, reply) => {
    transportSecurity(request, reply).headers(headers);
    const status = await statusFor(request, request.params.token);
    return sendFile(
      request,
      reply,
      status === undefined ? assets.html : assets.withStatus(statusBlock(toJson(status))),
    );
  });
  app.get<{ Params: { version?: string; name: string } }>(
    "/t/assets/:version/:name",
    async (request, reply) => {
      const { version, name } = request.params;
      if (!isAssetName(name)) return sendPageRefusal(reply, "not_found", "Not found");
      reply.headers(headers);
      reply.header("cache-control", version === assets.version ? FOR_GOOD : "no-cache");
      return sendFile(request, reply, assets.files[name]);
    },
  );
  app.get<{ Params: { name: string } }>("/t/assets/:name", async (request, reply) => {
    if (!isAssetName(request.params.name)) return sendPageRefusal(reply, "not_found", "Not found");
    reply.headers(headers).header("cache-control", "no-cache");
    return sendFile(request, reply, assets.files[request.params.name]);
  });
}

/** What the payment page's routes use. */
export interface PaymentPageContext extends HttpContext {
  hosted: HostedSessions;
}

export function registerHostedRoutes(app: FastifyInstance, ctx: PaymentPageContext): void {
  /**
   * Takes from the rate limits per address (IPv6 per /64: one client picks any address in it), then
   * per token; the seconds to wait, 0 when within them. The address comes first and a value that
   * cannot be a token gets no bucket of its own: guessing tokens at random costs the guesser its
   * address's limit, never a bucket per guess.
   */
  async function overLimit(request: FastifyRequest, token: string): Promise<number> {
    const wait = await ctx.rateLimiter.take(`page-ip:${addressKey(request.ip)}`, PER_ADDRESS_PER_SECOND);
    if (wait !== 0 || !isTokenShaped(token)) return wait;
    return ctx.rateLimiter.take(`page-token:${token}`, PER_TOKEN_PER_SECOND);
  }
  /** True after answering 429. */
  async function limited(request: FastifyRequest, reply: FastifyReply, token: string): Promise<boolean> {
    const wait = await overLimit(request, token);
    if (wait === 0) return false;
    reply.header("retry-after", String(wait));
    sendPageRefusal(reply, "too_many_requests", "Too many requests");
    return true;
  }
  /**
   * The page's own status, under the same limits as the status endpoint it stands in for. Past
   * them, or when the store fails, the page is still sent, without it: page.js then asks the
   * endpoint, and says what it answers (429, or "Sayfa yüklenemedi" with a retry).
   */
  async function statusFor(request: FastifyRequest, token: string): Promise<unknown | undefined> {
    if ((await overLimit(request, token)) !== 0) return undefined;
    try {
      const state = await ctx.hosted.state(token);
      return state ? view(state) : null;
    } catch (err) {
      // The error only, never the URL: it carries the token.
      request.log.error({ reqId: request.id, err }, "payment page sent without its status");
      return undefined;
    }
  }

  const assets = loadPageAssets();
  const headers = pageHeaders(assets.styleHash);
  registerPageFiles(app, assets, headers, statusFor);
  // Browsers ask for it on their own with every page (payers' and operators'): no icon, and no 404
  // in their consoles and our metrics.
  app.get("/favicon.ico", async (_request, reply) =>
    reply.code(204).header("cache-control", "public, max-age=86400").send(),
  );
  app.get<{ Params: { token: string } }>("/api/pay/:token", async (request, reply) => {
    reply.headers(headers);
    if (await limited(request, reply, request.params.token)) return reply;
    const state = await ctx.hosted.state(request.params.token);
    if (!state) return sendPageRefusal(reply, "not_found", "Not found");
    return sendJson(reply, 200, view(state));
  });

  // The page's own address as a QR code, for a payer who opened it on a computer and pays from a
  // phone's banking app. The address is the one the merchant sent the payer to (payment_url), made
  // absolute on this request's origin when PAYMENT_PAGE_URL is unset (a development server).
  app.get<{ Params: { token: string } }>("/api/pay/:token/qr.svg", async (request, reply) => {
    reply.headers(headers);
    if (await limited(request, reply, request.params.token)) return reply;
    if (!(await ctx.hosted.exists(request.params.token)))
      return sendPageRefusal(reply, "not_found", "Not found");
    const base = ctx.config.paymentPageUrl ?? `${request.protocol}://${request.host}`;
    return reply.type("image/svg+xml").send(qrSvg(`${base}/t/${request.params.token}`));
  });

  app.post<{ Params: { token: string } }>("/api/pay/:token/deposit", async (request, reply) => {
    reply.headers(headers);
    if (await limited(request, reply, request.params.token)) return reply;
    const body = parseJsonBody(request);
    // An unknown token is a 404 before anything else, so bad input reveals nothing either.
    if (!(await ctx.hosted.exists(request.params.token)))
      return sendPageRefusal(reply, "not_found", "Not found");
    if (!body.ok)
      return sendPageRefusal(reply, "invalid_json", "Validation failed: request body is not valid JSON");
    const amount = parsePageAmount(body.value);
    if (!amount.ok) return sendPageRefusal(reply, "invalid_amount", amount.message);
    const outcome = await ctx.hosted.submit(request.params.token, amount.value);
    if (!outcome.ok) {
      if (outcome.kind === "not_found") return sendPageRefusal(reply, "not_found", "Not found");
      if (outcome.kind === "reference_reused") {
        // Hosted mode checks nothing at creation, so only the payer meets this, and cannot fix it:
        // the merchant's integration can, once operators see it (docs/hosted-page.md).
        request.log.warn(
          { reqId: request.id, firmId: outcome.firmId, reference: outcome.reference },
          "hosted page refused an amount: the merchant opened the session with a reference already used",
        );
        ctx.metrics.hostedReferenceReused.inc();
        return sendPageRejection(reply, "duplicate_reference");
      }
      return sendPageRejection(reply, outcome.rejection);
    }
    return sendJson(reply, 200, view(outcome.state));
  });
}
