import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { encode as encodeQr } from "uqr";
import { z } from "zod";
import { refusal } from "../../domain/refusal.js";
import { sendJson } from "../../http/envelope.js";
import { plainText } from "../../http/operator-fields.js";
import { readBody, sendRefusal } from "../../http/operator-io.js";
import { SESSION_TTL_S } from "../console-sessions.js";
import { DEVICE_COOKIE } from "../devices.js";
import type { ConsoleService } from "../service.js";
import { ENDS_IN_HEADER, noteActivity } from "./activity.js";
import { cookieToken, renewCookie, setCookie, setDeviceCookie } from "./console-cookies.js";
import { type ConsoleGuard, sessionOf } from "./console-guard.js";

const login = z.strictObject({
  email: plainText(200).pipe(z.string().min(3)),
  password: z.string().min(1).max(200),
  code: z.string().max(20).optional(),
});
const passwordAndCode = z.strictObject({ password: z.string().min(1).max(200), code: z.string().max(20) });
const password = z.strictObject({ current: z.string().min(1).max(200), next: z.string().min(12).max(200) });

/** The QR code's modules, one string of 0 and 1 per row: the page draws them (no library there). */
function qrRows(text: string): string[] {
  return encodeQr(text, { ecc: "M", border: 0 }).data.map((row) =>
    row.map((dark) => (dark ? "1" : "0")).join(""),
  );
}

/**
 * An operator's own sign-in under /ops/api: signing in and out, the session, the password and the
 * second factor. Every route but the sign-in and the session needs the session's CSRF token.
 */
export function registerSignInRoutes(
  ops: FastifyInstance,
  consoleService: ConsoleService,
  guard: ConsoleGuard,
) {
  ops.post("/ops/api/login", async (request, reply) => signIn(consoleService, request, reply));
  ops.get("/ops/api/me", async (request, reply) => currentSession(consoleService, request, reply));
  ops.post("/ops/api/logout", async (request, reply) => {
    const who = await guard(request, reply, "viewer", true);
    if (!who) return reply;
    await consoleService.logout(who.session.token, who.operator);
    setCookie(request, reply, "", 0);
    return sendJson(reply, 200, { logged_out: true });
  });
  ops.post("/ops/api/password", async (request, reply) =>
    changePassword(consoleService, guard, request, reply),
  );
  registerSecondFactorRoutes(ops, consoleService, guard);
}

async function signIn(consoleService: ConsoleService, request: FastifyRequest, reply: FastifyReply) {
  // Only a script on our own page can send JSON here: a form on another site cannot, so it
  // cannot spend an office's failed-login allowance or lock an operator out.
  if (!String(request.headers["content-type"] ?? "").startsWith("application/json")) {
    return sendRefusal(reply, refusal("login_not_json", "Send the login as application/json"));
  }
  const input = readBody(reply, login, request, {
    code: "invalid_input",
    // A bad code is named as such: "email and password are required" would send an operator who has
    // both right looking for the fault in them.
    message: (error) =>
      error?.issues.every((i) => i.path[0] === "code")
        ? "code must be the 6 digits from the authenticator app or a recovery code"
        : "email and password are required",
  });
  if (!input) return reply;
  const { email, password, code } = input;
  const device = cookieToken(request, DEVICE_COOKIE);
  const result = await consoleService.login(email, password, request.ip, code, device);
  if (!result.ok) {
    if (result.reason === "throttled") {
      reply.header("retry-after", String(result.retryAfterS));
      return sendRefusal(
        reply,
        refusal("login_throttled", "Too many failed logins from your address; try again later"),
      );
    }
    if (result.reason === "busy") {
      reply.header("retry-after", "2");
      return sendRefusal(reply, refusal("sign_in_busy", "Sign-in is busy; try again in a few seconds"));
    }
    // The password was right: the page asks for the code (and sends both again).
    if (result.reason === "code" || result.reason === "wrong_code") {
      const asked =
        result.reason === "code"
          ? refusal("second_factor_code_needed", "Enter the code from your authenticator app")
          : refusal("wrong_second_factor_code", "Wrong or already used code");
      return sendRefusal(reply, asked, { second_factor: "totp" });
    }
    return sendRefusal(
      reply,
      result.reason === "locked"
        ? refusal("login_locked", "Too many failed logins; try again later")
        : refusal("wrong_login", "Wrong email or password"),
    );
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
}

async function currentSession(consoleService: ConsoleService, request: FastifyRequest, reply: FastifyReply) {
  const session = await sessionOf(consoleService, request);
  if (!session) return sendRefusal(reply, refusal("login_required", "Login required"));
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
}

async function changePassword(
  consoleService: ConsoleService,
  guard: ConsoleGuard,
  request: FastifyRequest,
  reply: FastifyReply,
) {
  const who = await guard(request, reply, "viewer", true);
  if (!who) return reply;
  const input = readBody(reply, password, request, {
    code: "invalid_input",
    message: "current and next (at least 12 characters) are required",
  });
  if (!input) return reply;
  const result = await consoleService.changePassword(who.operator, input.current, input.next, who.session);
  if (!result.ok) return sendRefusal(reply, result);
  renewCookie(request, reply, result.token);
  return sendJson(reply, 200, result.value);
}

/**
 * The signed-in operator's own second factor: start (a new secret, shown once, with its QR
 * code), confirm with the password and a code from it (the answer carries the recovery codes,
 * shown only there), remove with the password and a code, or replace the recovery codes so.
 */
function registerSecondFactorRoutes(
  ops: FastifyInstance,
  consoleService: ConsoleService,
  guard: ConsoleGuard,
) {
  ops.post("/ops/api/second-factor", async (request, reply) => {
    const who = await guard(request, reply, "viewer", true);
    if (!who) return reply;
    const started = await consoleService.secondFactor.start(who.operator.id, who.operator.email);
    if (!started.ok) return sendRefusal(reply, started);
    return sendJson(reply, 200, { ...started.value, qr: qrRows(started.value.uri) });
  });
  for (const step of ["confirm", "remove", "recovery-codes"] as const) {
    ops.post(`/ops/api/second-factor/${step}`, async (request, reply) =>
      secondFactorStep(consoleService, guard, step, request, reply),
    );
  }
}

async function secondFactorStep(
  consoleService: ConsoleService,
  guard: ConsoleGuard,
  step: "confirm" | "remove" | "recovery-codes",
  request: FastifyRequest,
  reply: FastifyReply,
) {
  const who = await guard(request, reply, "viewer", true);
  if (!who) return reply;
  const input = readBody(reply, passwordAndCode, request, {
    code: "invalid_input",
    message: "password and code are required",
  });
  if (!input) return reply;
  const { password, code } = input;
  const { id } = who.operator;
  const sf = consoleService.secondFactor;
  const result =
    step === "confirm"
      ? await sf.confirm(id, password, code, who.session)
      : step === "remove"
        ? await sf.remove(id, password, code, who.session)
        : await sf.replaceRecoveryCodes(id, password, code, who.session);
  if (!result.ok) return sendRefusal(reply, result);
  // Turning the second factor on or off renews the session's token (operators/console-sessions.ts).
  if ("token" in result) renewCookie(request, reply, result.token);
  return sendJson(reply, 200, result.value);
}
