import { randomUUID } from "node:crypto";
import { STATUS_CODES } from "node:http";
import type { Duplex } from "node:stream";
import Fastify, {
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  LogController,
} from "fastify";
import { registerDocsRoutes } from "../api-reference/routes.js";
import { createAdminTokenGuard } from "../backoffice/admin-token-guard.js";
import { adminTokenHook, registerAdminRoutes } from "../backoffice/http/admin-routes.js";
import { registerConsoleRoutes } from "../backoffice/http/console-routes.js";
import type { Backoffice } from "../backoffice/operator-services.js";
import type { QueueNotices } from "../decisions/queue-notices.js";
import { ADMIN_API, operatorActor } from "../domain/actors.js";
import { type Refusal, refusal } from "../domain/refusal.js";
import { registerBodyDeadline } from "../http/body-deadline.js";
import { INTERNAL_ERROR_MESSAGE, sendError, sendPlainJson } from "../http/envelope.js";
import { REFUSAL_STATUS } from "../http/operator-io.js";
import { registerHealthRoutes } from "../http/ops/health.js";
import { registerMetrics } from "../http/ops/metrics.js";
import { warnOfUntrustedProxy } from "../http/proxy-hint.js";
import { registerBalanceRoutes } from "../intake/http/balance.js";
import type { IntakeContext } from "../intake/http/context.js";
import { registerDepositRoute } from "../intake/http/deposits.js";
import { registerSandboxRoutes } from "../intake/http/sandbox.js";
import { registerTransactionRoutes } from "../intake/http/transactions.js";
import { registerWithdrawalRoute } from "../intake/http/withdrawals.js";
import { consoleGuard } from "../operators/http/console-guard.js";
import { registerConsolePage } from "../operators/http/console-page.js";
import type { ConsoleService } from "../operators/service.js";
import type { PaymentPageContext } from "../payment-page/routes.js";
import { registerHostedRoutes } from "../payment-page/routes.js";
import { registerReconciliationRoutes } from "../reconciliation/http/routes.js";
import { statementImportSlots } from "../reconciliation/http/statement-routes.js";

export const BODY_LIMIT_BYTES = 64 * 1024;
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/;

/** Fastify's own client errors that we answer in the envelope instead of a 500. */
const CLIENT_ERRORS: Record<string, Pick<Refusal, "code" | "message">> = {
  FST_ERR_CTP_BODY_TOO_LARGE: { code: "body_too_large", message: "Request body too large" },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { code: "invalid_content_length", message: "Invalid Content-Length" },
  FST_ERR_CTP_EMPTY_JSON_BODY: {
    code: "invalid_json",
    message: "Validation failed: request body is not valid JSON",
  },
};

/**
 * A refusal raised before or outside any route, answered on the surface it was asked of: the
 * merchant API's in the contract's two-key envelope, every other with its code. Its status is the
 * code's, or the one Fastify gave its own error (`status`).
 */
function refuseAnywhere(
  request: FastifyRequest,
  reply: FastifyReply,
  refused: Pick<Refusal, "code" | "message">,
  status: number = REFUSAL_STATUS[refused.code],
) {
  if (request.url.startsWith(MERCHANT_API_PREFIX)) return sendError(reply, status, refused.message);
  return sendPlainJson(reply, status, { success: false, code: refused.code, message: refused.message });
}
const MERCHANT_API_PREFIX = "/paymentapi/";
const NOT_FOUND = refusal("not_found", "Not found");
const BAD_REQUEST = refusal("bad_request", "Bad request");
const URL_TOO_LONG = refusal("url_too_long", "Request URL too long");

/** An answer written on the socket itself, in the envelope, before the connection is closed. */
function refuseOnSocket(socket: Duplex, status: number, message: string): void {
  if (socket.writable) {
    const body = JSON.stringify({ success: false, message });
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nContent-Type: application/json; charset=utf-8\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}

/** Everything the routes of every part use: the union of each part's context. */
export interface AppContext extends IntakeContext, PaymentPageContext {
  hosted: IntakeContext["hosted"] & PaymentPageContext["hosted"];
  adminToken: string;
  /** The open consoles' notices that the pending queues changed. */
  queueNotices: QueueNotices;
}

export function buildApp(
  ctx: AppContext,
  backoffice: Backoffice,
  consoleService: ConsoleService,
  logger: FastifyBaseLogger,
  trustProxy: readonly string[] = [],
  role: "all" | "api" | "worker" = "all",
): FastifyInstance {
  const app = Fastify({
    loggerInstance: logger,
    bodyLimit: BODY_LIMIT_BYTES,
    // Slow clients cannot hold a connection forever: headers within 10 s, a body within
    // PAYINTAKE_REQUEST_TIMEOUT_MS (body-deadline.ts), a statement upload within its own longer limit.
    requestTimeout: ctx.config.uploadTimeoutMs,
    connectionTimeout: ctx.config.connectionSilenceMs,
    // Between requests this replaces the two above. Above every load balancer's idle timeout
    // (config.ts): a server that closes a connection the balancer is about to reuse makes a deposit
    // sent on it at that moment come back a 502 (POSTs are not retried by proxies).
    keepAliveTimeout: ctx.config.keepAliveTimeoutMs,
    // Node checks those limits only every 30 s by default, so either could be overrun by up to 30 s.
    // Checked every second, they hold to the second.
    http: { headersTimeout: 10_000, connectionsCheckingInterval: 1_000 },
    return503OnClosing: true,
    // Requests Node's parser refuses: answered in the envelope, logged by their error code only.
    // Fastify's own handler logs the request's raw bytes at trace level, secrets and signed
    // headers included, from which a signed withdrawal could be replayed.
    clientErrorHandler(err, socket) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === "ECONNRESET" || socket.destroyed) return;
      const [status, message] =
        code === "ERR_HTTP_REQUEST_TIMEOUT"
          ? [408, "Request timeout"]
          : code === "HPE_HEADER_OVERFLOW"
            ? [431, "Request headers too large"]
            : [400, "Bad request"];
      logger.debug({ code }, "request refused by the HTTP parser");
      refuseOnSocket(socket, status, message);
    },
    // Only named proxies may say who the client is and that it came over https.
    trustProxy: trustProxy.length > 0 ? [...trustProxy] : false,
    // Request lines carry URLs, and later URLs carry hosted-page tokens: request logging is ours.
    logController: new LogController({ disableRequestLogging: true }),
    // No child logger per request (a measurable share of a deposit's CPU): the one line we log per
    // request, an unhandled error, names its request id itself.
    childLoggerFactory: (logger) => logger,
    // References may be 100 Unicode characters: URL-encoded, that is up to 900 bytes in a path.
    routerOptions: { maxParamLength: 1_000 },
    // Errors the router raises before any route (a bad or overlong URL) answer in the envelope too.
    frameworkErrors: (error, request, reply) => {
      const status = error.statusCode ?? 400;
      void refuseAnywhere(request, reply, status === 414 ? URL_TOO_LONG : BAD_REQUEST, status);
    },
    // A caller's own request id is kept when it is a plain token, so one id follows a request
    // through their logs and ours; otherwise a fresh one.
    genReqId: (req) => {
      const given = req.headers["x-request-id"];
      return typeof given === "string" && REQUEST_ID.test(given) ? given : randomUUID();
    },
  });

  registerBodyDeadline(app, ctx.config.requestTimeoutMs, (socket) => {
    logger.debug({ code: "ERR_HTTP_REQUEST_TIMEOUT" }, "request body too slow");
    refuseOnSocket(socket, 408, "Request timeout");
  });

  // Before any route: it hooks the routes whose limits count per address.
  if (trustProxy.length === 0) warnOfUntrustedProxy(app, logger);

  // Bodies stay raw bytes: the signature is verified over exactly what arrived, and JSON parsing
  // happens after authentication, as decisions.md orders the checks.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", { parseAs: "buffer", bodyLimit: BODY_LIMIT_BYTES }, (_req, body, done) => {
    done(null, body);
  });

  app.setErrorHandler((error, request, reply) => {
    const code = (error as { code?: string }).code ?? "";
    const known = CLIENT_ERRORS[code];
    if (known) return refuseAnywhere(request, reply, known);
    const status = (error as { statusCode?: number }).statusCode;
    if (status !== undefined && status >= 400 && status < 500) {
      return refuseAnywhere(request, reply, status === 404 ? NOT_FOUND : BAD_REQUEST, status);
    }
    // Only the error itself is logged: never headers or body, which may carry secrets.
    request.log.error(
      { reqId: request.id, err: error, method: request.method, route: request.routeOptions.url },
      "unhandled error",
    );
    return refuseAnywhere(request, reply, refusal("internal_error", INTERNAL_ERROR_MESSAGE));
  });

  // No answer leaves before the writes (and uncommitted reads) behind it are durable.
  app.addHook("onSend", async (request, reply) => {
    reply.header("x-request-id", request.id);
    if (ctx.draining) reply.header("connection", "close");
    await ctx.settle();
  });

  app.setNotFoundHandler((request, reply) => refuseAnywhere(request, reply, NOT_FOUND));

  registerHealthRoutes(app, ctx, role);
  registerMetrics(app, ctx.metrics, ctx.config.metricsToken);
  // A worker answers probes only: its work is the outbox and auto-cancel (main/server.ts).
  if (role === "worker") return app;
  registerDepositRoute(app, ctx);
  registerWithdrawalRoute(app, ctx);
  registerSandboxRoutes(app, ctx, backoffice);
  registerTransactionRoutes(app, ctx);
  registerBalanceRoutes(app, ctx, backoffice.merchantBalances);
  const adminGuard = createAdminTokenGuard({
    token: ctx.adminToken,
    store: ctx.repos.loginWindows,
    now: ctx.now,
    onError: (err) => app.log.error({ err }, "admin token window upkeep failed"),
  });
  registerAdminRoutes(app, backoffice, adminGuard, consoleService);
  const consoleDoor = consoleGuard(consoleService);
  registerReconciliationRoutes(
    app,
    {
      repos: ctx.repos,
      box: ctx.box,
      paymentCodes: ctx.paymentCodes,
      now: ctx.now,
      decisionsMade: () => backoffice.decisionsMade(),
    },
    {
      admin: async (request, reply) => {
        await adminTokenHook(adminGuard)(request, reply);
        return reply.sent ? undefined : { actor: ADMIN_API, admin: true, approver: { kind: "admin_api" } };
      },
      console: async (request, reply, needed) => {
        const who = await consoleDoor(request, reply, needed);
        return (
          who && {
            actor: operatorActor(who.operator.email),
            admin: who.operator.role === "admin",
            approver: { kind: "operator", role: who.operator.role },
          }
        );
      },
    },
    statementImportSlots(ctx.config.statementImportsAtOnce, (n) => ctx.metrics.statementImports.set(n)),
  );
  registerConsoleRoutes(app, consoleService, backoffice, ctx.queueNotices, ctx.config.consoleHeartbeatMs);
  registerConsolePage(app);
  registerDocsRoutes(app);
  registerHostedRoutes(app, ctx);
  return app;
}
