import { timingSafeEqual } from "node:crypto";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { encode as encodeQr } from "uqr";
import { z } from "zod";
import { toCsv, toExcelCsv } from "../../backoffice/csv.js";
import type { Backoffice } from "../../backoffice/service.js";
import { DEVICE_COOKIE, DEVICE_TTL_MS } from "../../console/devices.js";
import type { QueueNotices } from "../../console/queue-notices.js";
import { type ConsoleOperator, type ConsoleService, type Role, roleAllows } from "../../console/service.js";
import { SESSION_TTL_S, type SessionRef } from "../../console/sessions.js";
import { METHODS } from "../../domain/fields.js";
import { maskIban } from "../../domain/masking.js";
import { parseAmount } from "../../domain/money.js";
import { sendError, sendJson } from "../envelope.js";
import { answer, parse, parseBody } from "../management/io.js";
import { registerManagementRoutes } from "../management/routes.js";
import {
  amountText,
  idParam,
  idText,
  limitText,
  nameSearchText,
  note,
  operatorCreate,
  operatorUpdate,
  plainText,
  recordIdOf,
} from "../management/schemas.js";
import { parseJsonBody } from "../merchant/common.js";
import { ENDS_IN_HEADER, noteActivity } from "./activity.js";
import {
  createLiveStreams,
  LIVE_STREAMS_PER_INSTANCE,
  LIVE_STREAMS_PER_OPERATOR,
  LIVE_STREAMS_PER_SESSION,
} from "./live.js";

/** Rows a console search shows at once, and the most an export gives (web/console shows both). */
export const SEARCH_PAGE = 200;
const CSV_LIMIT = 50_000;

/**
 * The operator console's API under /ops/api (the page is assets/console/, served by page.ts).
 * Every route needs a session cookie; every change also needs the session's CSRF
 * token in X-CSRF-Token; each route names the least role it needs (viewer < operator < admin).
 */
const COOKIE = "payintake_ops";
const CSV_COLUMNS = [
  "id",
  "created_at",
  "type",
  "status",
  "firm_id",
  "reference",
  "amount",
  "original_amount",
  "method",
  "user_id",
  "username",
  "first_name",
  "last_name",
  "assigned_bank_name",
  "assigned_iban",
  "iban",
  "decided_at",
  "decided_by",
  // Added at the end, so that sheets reading the columns by position keep working: what
  // reconciling payouts against a bank statement needs besides the above.
  "firm_name",
  "middle_name",
  "iban_valid",
  "decision_note",
] as const;
const CSV_AMOUNTS = ["amount", "original_amount"];

/** The QR code's modules, one string of 0 and 1 per row: the page draws them (no library there). */
function qrRows(text: string): string[] {
  return encodeQr(text, { ecc: "M", border: 0 }).data.map((row) =>
    row.map((dark) => (dark ? "1" : "0")).join(""),
  );
}

function sameToken(given: string | string[] | undefined, expected: string): boolean {
  if (typeof given !== "string") return false;
  const a = Buffer.from(given, "utf8");
  const b = Buffer.from(expected, "utf8");
  return a.length === b.length && timingSafeEqual(a, b);
}

function cookieToken(request: FastifyRequest, cookie = COOKIE): string | undefined {
  const header = request.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(";")) {
    const [name, ...value] = part.trim().split("=");
    if (name === cookie) return value.join("=");
  }
  return undefined;
}

function setCookie(request: FastifyRequest, reply: FastifyReply, token: string, maxAgeS: number) {
  const secure = request.protocol === "https" ? "; Secure" : "";
  reply.header(
    "set-cookie",
    `${COOKIE}=${token}; Path=/ops; HttpOnly; SameSite=Strict; Max-Age=${maxAgeS}${secure}`,
  );
}

/** The renewed session's cookie (console/sessions.ts renewSession); none opened: the cookie goes. */
function renewCookie(request: FastifyRequest, reply: FastifyReply, token: string | null) {
  setCookie(request, reply, token ?? "", token === null ? 0 : SESSION_TTL_S);
}

/**
 * The known-browser cookie (console/devices.ts): sent back only to the sign-in, the one route that
 * reads it. Fastify adds it beside the session's cookie.
 */
function setDeviceCookie(request: FastifyRequest, reply: FastifyReply, value: string) {
  const secure = request.protocol === "https" ? "; Secure" : "";
  const maxAgeS = Math.floor(DEVICE_TTL_MS / 1000);
  reply.header(
    "set-cookie",
    `${DEVICE_COOKIE}=${value}; Path=/ops/api/login; HttpOnly; SameSite=Strict; Max-Age=${maxAgeS}${secure}`,
  );
}

const login = z.strictObject({
  email: plainText(200).pipe(z.string().min(3)),
  password: z.string().min(1).max(200),
  code: z.string().max(20).optional(),
});
const passwordAndCode = z.strictObject({ password: z.string().min(1).max(200), code: z.string().max(20) });
const password = z.strictObject({ current: z.string().min(1).max(200), next: z.string().min(12).max(200) });
const decision = z.strictObject({ note: note.optional(), amount: z.string().optional() });
const payingBody = z.strictObject({
  paying: z.boolean(),
  /** With `paying: false`: the holder the operator was shown; another's mark is not taken off. */
  holder: z.string().min(1).max(254).optional(),
});
const queue = z.object({
  type: z.enum(["deposit", "withdrawal"]).default("deposit"),
  order: z.enum(["oldest", "newest"]).default("oldest"),
  firm: idText.optional(),
  amount: amountText.optional(),
  name: nameSearchText.optional(),
  method: z.enum(METHODS).optional(),
});
/**
 * The most rows a queue shows at once. Past it the console says how many there are in all, and
 * the filters (firm, amount, name) and the other order reach the rest.
 */
const QUEUE_PAGE = 500;

export function registerConsoleRoutes(
  app: FastifyInstance,
  consoleService: ConsoleService,
  backoffice: Backoffice,
  queueNotices: QueueNotices,
  heartbeatMs: number,
): void {
  const live = createLiveStreams(queueNotices, {
    heartbeatMs,
    perSession: LIVE_STREAMS_PER_SESSION,
    perOperator: LIVE_STREAMS_PER_OPERATOR,
    perInstance: LIVE_STREAMS_PER_INSTANCE,
  });
  // Before the server stops listening: it would otherwise wait for every open stream.
  app.addHook("preClose", async () => live.closeAll());
  app.register(async (ops) => {
    ops.addHook("onSend", async (_request, reply) => {
      reply.header("cache-control", "no-store");
    });

    const setUpFirst = (o: ConsoleOperator) => consoleService.secondFactorRequired && !o.second_factor;

    ops.post("/ops/api/login", async (request, reply) => {
      // Only a script on our own page can send JSON here: a form on another site cannot, so it
      // cannot spend an office's failed-login allowance or lock an operator out.
      if (!String(request.headers["content-type"] ?? "").startsWith("application/json")) {
        return sendError(reply, 415, "Send the login as application/json");
      }
      const json = parseJsonBody(request);
      const input = json.ok ? login.safeParse(json.value) : undefined;
      if (!input?.success) {
        // A bad code is named as such: "email and password are required" sent an operator who had
        // both right looking for the fault in them.
        const codeOnly = input?.error.issues.every((i) => i.path[0] === "code");
        return sendError(
          reply,
          400,
          codeOnly
            ? "code must be the 6 digits from the authenticator app or a recovery code"
            : "email and password are required",
        );
      }
      const { email, password, code } = input.data;
      const device = cookieToken(request, DEVICE_COOKIE);
      const result = await consoleService.login(email, password, request.ip, code, device);
      if (!result.ok) {
        if (result.reason === "throttled") {
          reply.header("retry-after", String(result.retryAfterS));
          return sendError(reply, 429, "Too many failed logins from your address; try again later");
        }
        if (result.reason === "busy") {
          reply.header("retry-after", "2");
          return sendError(reply, 503, "Sign-in is busy; try again in a few seconds");
        }
        // The password was right: the page asks for the code (and sends both again).
        if (result.reason === "code" || result.reason === "wrong_code") {
          return sendJson(reply, 401, {
            success: false,
            message:
              result.reason === "code"
                ? "Enter the code from your authenticator app"
                : "Wrong or already used code",
            second_factor: "totp",
          });
        }
        return result.reason === "locked"
          ? sendError(reply, 423, "Too many failed logins; try again later")
          : sendError(reply, 401, "Wrong email or password");
      }
      setCookie(request, reply, result.token, SESSION_TTL_S);
      // A new session has all of its 12 hours (the idle time the page takes from the settings).
      reply.header(ENDS_IN_HEADER, String(SESSION_TTL_S));
      setDeviceCookie(request, reply, result.device_cookie);
      return sendJson(reply, 200, {
        operator: result.operator,
        csrf_token: result.csrf,
        ...consoleService.settings,
      });
    });

    /**
     * The session, its CSRF check on changes, and the role; undefined after answering. Where the
     * console requires a second factor, an operator without one may only use the routes that set
     * it up (`setUp`): signing out, the password and the second factor itself.
     */
    async function guard(
      request: FastifyRequest,
      reply: FastifyReply,
      needed: Role,
      setUp = false,
    ): Promise<{ operator: ConsoleOperator; session: SessionRef } | undefined> {
      const token = cookieToken(request);
      const session = token ? await consoleService.session(token) : undefined;
      if (!token || !session) return void sendError(reply, 401, "Login required");
      if (request.method !== "GET" && !sameToken(request.headers["x-csrf-token"], session.csrf)) {
        return void sendError(reply, 403, "CSRF token missing or wrong");
      }
      await noteActivity(consoleService, request, reply, session);
      if (!setUp && setUpFirst(session.operator)) {
        return void sendJson(reply, 403, {
          success: false,
          message: "Set up two-step sign-in first: this console requires it",
          second_factor_required: true,
        });
      }
      if (!roleAllows(session.operator.role, needed))
        return void sendError(reply, 403, "Not allowed for your role");
      return { operator: session.operator, session: session.ref };
    }

    ops.get("/ops/api/me", async (request, reply) => {
      const token = cookieToken(request);
      const session = token ? await consoleService.session(token) : undefined;
      if (!session) return sendError(reply, 401, "Login required");
      // Also the page's "stay signed in" (marked as the operator's) and its check of the time left.
      await noteActivity(consoleService, request, reply, session);
      return sendJson(reply, 200, {
        operator: session.operator,
        csrf_token: session.csrf,
        ...consoleService.settings,
        recovery_codes_left: session.operator.second_factor
          ? await consoleService.secondFactor.recoveryCodesLeft(session.operator.id)
          : 0,
      });
    });

    ops.post("/ops/api/logout", async (request, reply) => {
      const who = await guard(request, reply, "viewer", true);
      if (!who) return reply;
      await consoleService.logout(who.session.token, who.operator);
      setCookie(request, reply, "", 0);
      return sendJson(reply, 200, { logged_out: true });
    });

    ops.post("/ops/api/password", async (request, reply) => {
      const who = await guard(request, reply, "viewer", true);
      if (!who) return reply;
      const json = parseJsonBody(request);
      const input = json.ok ? password.safeParse(json.value) : undefined;
      if (!input?.success)
        return sendError(reply, 400, "current and next (at least 12 characters) are required");
      const result = await consoleService.changePassword(
        who.operator,
        input.data.current,
        input.data.next,
        who.session,
      );
      if (!result.ok) return sendError(reply, result.status, result.message);
      renewCookie(request, reply, result.token);
      return sendJson(reply, 200, result.value);
    });

    // The signed-in operator's own second factor: start (a new secret, shown once, with its QR
    // code), confirm with the password and a code from it (the answer carries the recovery codes,
    // shown only there), remove with the password and a code, or replace the recovery codes so.
    ops.post("/ops/api/second-factor", async (request, reply) => {
      const who = await guard(request, reply, "viewer", true);
      if (!who) return reply;
      const started = await consoleService.secondFactor.start(who.operator.id, who.operator.email);
      if (!started.ok) return sendError(reply, started.status, started.message);
      return sendJson(reply, 200, { ...started.value, qr: qrRows(started.value.uri) });
    });
    for (const step of ["confirm", "remove", "recovery-codes"] as const) {
      ops.post(`/ops/api/second-factor/${step}`, async (request, reply) => {
        const who = await guard(request, reply, "viewer", true);
        if (!who) return reply;
        const json = parseJsonBody(request);
        const input = json.ok ? passwordAndCode.safeParse(json.value) : undefined;
        if (!input?.success) return sendError(reply, 400, "password and code are required");
        const { password, code } = input.data;
        const { id } = who.operator;
        const sf = consoleService.secondFactor;
        const result =
          step === "confirm"
            ? await sf.confirm(id, password, code, who.session)
            : step === "remove"
              ? await sf.remove(id, password, code, who.session)
              : await sf.replaceRecoveryCodes(id, password, code, who.session);
        if (!result.ok) return sendError(reply, result.status, result.message);
        // Turning the second factor on or off renews the session's token (console/sessions.ts).
        if ("token" in result) renewCookie(request, reply, result.token);
        return sendJson(reply, 200, result.value);
      });
    }

    // The firms' names by id, for the screens that list transactions, which carry the id alone: a
    // name, not the firm's keys and settings in every operator's browser.
    ops.get("/ops/api/firm-names", async (request, reply) => {
      if (!(await guard(request, reply, "viewer"))) return reply;
      return sendJson(reply, 200, await backoffice.firmNames());
    });

    ops.get("/ops/api/queue", async (request, reply) => {
      if (!(await guard(request, reply, "viewer"))) return reply;
      const q = queue.safeParse(request.query);
      if (!q.success)
        return sendError(
          reply,
          400,
          "type must be deposit or withdrawal, order oldest or newest; firm an id, amount an amount, name up to 5 words, method fast, eft or havale",
        );
      const page = await backoffice.pageOfTransactions({
        status: "pending",
        type: q.data.type,
        order: q.data.order,
        firmId: q.data.firm,
        amountMinor: q.data.amount,
        nameWords: q.data.name,
        method: q.data.method,
        limit: QUEUE_PAGE,
        // Test firms decide their own transactions with the sandbox helpers (docs/sandbox.md):
        // a test withdrawal must never reach an operator who pays out real money.
        liveOnly: true,
      });
      // The page is the body, as before; how many the queue holds in all rides in a header.
      reply.header("x-total-count", String(page.total));
      if (q.data.type !== "withdrawal") return sendJson(reply, 200, page.rows);
      // Who is paying out each payout now, so that nobody else sends the same money.
      const paying = await backoffice.payingOf(page.rows.map((r) => r.id));
      return sendJson(
        reply,
        200,
        page.rows.map((r) => {
          const claim = paying.get(r.id);
          return {
            ...r,
            paying_by: claim?.operator ?? null,
            paying_since: claim ? new Date(claim.claimedAt).toISOString() : null,
          };
        }),
      );
    });

    // The live stream (http/console/live.ts): the queues' changes as they happen.
    // Long-lived: its duration is not a request's (http/ops/metrics.ts).
    ops.get("/ops/api/events", { config: { longLived: true } }, async (request, reply) => {
      const who = await guard(request, reply, "viewer");
      if (!who) return reply;
      const { token } = who.session;
      return live.open(
        reply,
        { session: token, operator: who.operator.id },
        async () => (await consoleService.session(token)) !== undefined,
      );
    });

    // An operator paying out a withdrawal says so (the console does on the first copy of its
    // fields), so that a colleague does not send the same money; `paying: false` lets go of it.
    ops.post<{ Params: { id: string } }>("/ops/api/transactions/:id/paying", async (request, reply) => {
      const who = await guard(request, reply, "operator");
      if (!who) return reply;
      const id = recordIdOf(request.params.id);
      if (id === undefined) return sendError(reply, 400, "invalid id");
      const json = parseJsonBody(request);
      const input = json.ok ? payingBody.safeParse(json.value) : undefined;
      if (!input?.success)
        return sendError(reply, 400, "paying must be true or false; holder, if given, an operator's email");
      const outcome = await backoffice.payingOut(
        id,
        who.operator.email,
        { paying: input.data.paying, holder: input.data.holder },
        `operator:${who.operator.email}`,
      );
      if (outcome.ok) return sendJson(reply, 200, outcome.value);
      if ("paying_by" in outcome)
        return sendJson(reply, 409, {
          success: false,
          message: outcome.message,
          paying_by: outcome.paying_by,
          paying_since: outcome.paying_since,
        });
      return sendError(reply, outcome.status, outcome.message);
    });

    for (const kind of ["approve", "reject"] as const) {
      ops.post<{ Params: { id: string } }>(`/ops/api/transactions/:id/${kind}`, async (request, reply) => {
        const who = await guard(request, reply, "operator");
        if (!who) return reply;
        const id = recordIdOf(request.params.id);
        if (id === undefined) return sendError(reply, 400, "invalid id");
        const json = parseJsonBody(request);
        const input = json.ok ? decision.safeParse(json.value) : undefined;
        if (!input?.success)
          return sendError(
            reply,
            400,
            "note (at most 500 characters, no control characters) and amount are optional strings",
          );
        let amountMinor: number | undefined;
        if (kind === "approve" && input.data.amount !== undefined) {
          const parsed = parseAmount(input.data.amount);
          if (!parsed.ok)
            return sendError(
              reply,
              400,
              "amount must be a decimal amount greater than 0 with at most 2 decimals",
            );
          amountMinor = parsed.minor;
        }
        const outcome = await backoffice.decide(
          id,
          kind === "approve"
            ? {
                kind,
                note: input.data.note,
                amountMinor,
                mayExceedAsked: who.operator.role === "admin",
              }
            : { kind, note: input.data.note },
          `operator:${who.operator.email}`,
        );
        return outcome.ok
          ? sendJson(reply, 200, outcome.value)
          : sendError(reply, outcome.status, outcome.message);
      });
    }

    const search = z.object({
      id: idText.optional(),
      reference: plainText(100).optional(),
      user_id: plainText(50).optional(),
      username: plainText(100).optional(),
      iban: plainText(64).optional(),
      status: z.enum(["pending", "approved", "rejected"]).optional(),
      type: z.enum(["deposit", "withdrawal"]).optional(),
      firm: idText.optional(),
      // The amount exactly, as a bank statement line shows it ("1500.50"): to match a transfer.
      amount: amountText.optional(),
      name: nameSearchText.optional(),
      from: z.iso.datetime({ offset: true }).optional(),
      to: z.iso.datetime({ offset: true }).optional(),
      limit: limitText.optional(),
      // The export's variant (docs/console.md); a search ignores it.
      format: z.enum(["excel"]).optional(),
    });
    /**
     * A search shows a page (200 unless asked otherwise, the console says when there may be more);
     * an export is for reconciliation and takes up to 50,000 rows (a day of a busy firm).
     */
    async function findTransactions(request: FastifyRequest, reply: FastifyReply, exportAll = false) {
      const q = search.safeParse(request.query);
      if (!q.success)
        return void sendError(
          reply,
          400,
          "bad search: check ids, statuses, amounts, names and ISO 8601 dates",
        );
      const f = q.data;
      const rows = await backoffice.listTransactions({
        id: f.id,
        reference: f.reference,
        userId: f.user_id,
        username: f.username,
        iban: f.iban?.replace(/\s+/g, "").toUpperCase(),
        status: f.status,
        type: f.type,
        firmId: f.firm,
        amountMinor: f.amount,
        nameWords: f.name,
        from: f.from === undefined ? undefined : Date.parse(f.from),
        to: f.to === undefined ? undefined : Date.parse(f.to),
        limit: exportAll ? CSV_LIMIT : (f.limit ?? SEARCH_PAGE),
      });
      // As the export's audit row names it: the filter as given, an IBAN masked as everywhere else.
      const asked = Object.fromEntries(
        Object.entries({ ...f, iban: f.iban === undefined ? undefined : maskIban(f.iban) }).filter(
          ([, v]) => v !== undefined,
        ),
      );
      return { rows, excel: f.format === "excel", asked };
    }

    ops.get("/ops/api/transactions", async (request, reply) => {
      if (!(await guard(request, reply, "viewer"))) return reply;
      const found = await findTransactions(request, reply);
      return found === undefined ? reply : sendJson(reply, 200, found.rows);
    });

    ops.get("/ops/api/transactions.csv", async (request, reply) => {
      const who = await guard(request, reply, "viewer");
      if (!who) return reply;
      const found = await findTransactions(request, reply, true);
      if (found === undefined) return reply;
      const { excel, asked } = found;
      const names = new Map((await backoffice.firmNames()).map((f) => [f.id, f.name]));
      const rows = found.rows.map((r) => ({ ...r, firm_name: names.get(r.firm_id) ?? "" }));
      // Personal data leaving the console: who took which rows is in the audit log first.
      await backoffice.recordExport(`operator:${who.operator.email}`, {
        filter: asked,
        rows: rows.length,
        format: excel ? "excel" : "csv",
      });
      return reply
        .type("text/csv; charset=utf-8")
        .header(
          "content-disposition",
          `attachment; filename="${excel ? "transactions-excel.csv" : "transactions.csv"}"`,
        )
        .header("x-rows-limited", rows.length >= CSV_LIMIT ? "true" : "false")
        .send(excel ? toExcelCsv(CSV_COLUMNS, rows, CSV_AMOUNTS) : toCsv(CSV_COLUMNS, rows));
    });

    ops.get<{ Params: { id: string } }>("/ops/api/transactions/:id", async (request, reply) => {
      const who = await guard(request, reply, "viewer");
      if (!who) return reply;
      const id = recordIdOf(request.params.id);
      if (id === undefined) return sendError(reply, 400, "invalid id");
      const detail = await backoffice.transactionDetail(id);
      return detail.ok ? sendJson(reply, 200, detail.value) : sendError(reply, detail.status, detail.message);
    });

    // A change of sorts (POST, with the CSRF check): it writes the audit row that records who saw it.
    ops.post<{ Params: { id: string } }>("/ops/api/transactions/:id/national-id", async (request, reply) => {
      const who = await guard(request, reply, "admin");
      if (!who) return reply;
      const id = recordIdOf(request.params.id);
      if (id === undefined) return sendError(reply, 400, "invalid id");
      const shown = await backoffice.revealNationalId(id, `operator:${who.operator.email}`);
      return shown.ok ? sendJson(reply, 200, shown.value) : sendError(reply, shown.status, shown.message);
    });

    ops.post<{ Params: { id: string } }>("/ops/api/callbacks/:id/redeliver", async (request, reply) => {
      const who = await guard(request, reply, "operator");
      if (!who) return reply;
      const id = recordIdOf(request.params.id);
      if (id === undefined) return sendError(reply, 400, "invalid id");
      const outcome = await backoffice.redeliver(id, `operator:${who.operator.email}`);
      return outcome.ok
        ? sendJson(reply, 200, outcome.value)
        : sendError(reply, outcome.status, outcome.message);
    });

    registerManagementRoutes(ops, "/ops/api", backoffice, async (request, reply, needed) => {
      const who = await guard(request, reply, needed);
      return who && `operator:${who.operator.email}`;
    });

    ops.get("/ops/api/operators", async (request, reply) => {
      if (!(await guard(request, reply, "admin"))) return reply;
      return sendJson(reply, 200, await consoleService.listOperators());
    });
    ops.post("/ops/api/operators", async (request, reply) => {
      const who = await guard(request, reply, "admin");
      if (!who) return reply;
      const input = parseBody(operatorCreate, request);
      if (!input.ok) return sendError(reply, 400, input.message);
      const { email, role, password } = input.value;
      const actor = `operator:${who.operator.email}`;
      return answer(reply, await consoleService.createOperator(email, role, password ?? null, actor), 201);
    });
    ops.patch("/ops/api/operators/:id", async (request, reply) => {
      const who = await guard(request, reply, "admin");
      if (!who) return reply;
      const p = parse(idParam, request.params);
      const input = parseBody(operatorUpdate, request);
      if (!p.ok) return sendError(reply, 400, p.message);
      if (!input.ok) return sendError(reply, 400, input.message);
      const actor = `operator:${who.operator.email}`;
      return answer(reply, await consoleService.updateOperator(who.operator, p.value.id, input.value, actor));
    });

    ops.get("/ops/api/dashboard", async (request, reply) => {
      if (!(await guard(request, reply, "viewer"))) return reply;
      return sendJson(reply, 200, await backoffice.dashboard());
    });
  });
}
