import type { SecretBox } from "../crypto/secret-box.js";
import { refusal } from "../domain/refusal.js";
import type { Repositories } from "../store/index.js";
import { renewSession, type SessionRef, tokenHashOf } from "./console-sessions.js";
import { sessionDeviceCounter } from "./devices.js";
import { createIdleTimeout, DEFAULT_IDLE_MINUTES } from "./idle.js";
import { createLoginThrottle } from "./login-throttle.js";
import { type ConsoleOperator, operatorView, type Role } from "./operator.js";
import { createOperator, listOperators, resetSecondFactor, updateOperator } from "./operator-accounts.js";
import { hashPassword } from "./passwords.js";
import { createSecondFactor } from "./second-factor.js";
import { ADDRESS_FAILURES, ADDRESS_WINDOW_MS, login, newSignInState, type SignInContext } from "./sign-in.js";
import { createGuess, guessFrom } from "./sign-in-attempts.js";

export { SESSION_TTL_MS } from "./console-sessions.js";
export {
  ADDRESS_FAILURES,
  ADDRESS_WINDOW_MS,
  KNOWN_BROWSER_SIGN_INS_AT_ONCE,
  SIGN_INS_AT_ONCE,
} from "./sign-in.js";

import { operatorActor } from "../domain/actors.js";

export { LOCK_AFTER_FAILURES, LOCK_MS } from "./sign-in-attempts.js";

/** What the console service is made of. */
export interface ConsoleServiceDeps {
  repos: Repositories;
  /** Opens the operators' authenticator secrets (sealed with the master key). */
  box: SecretBox;
  now(): number;
  /** Every operator must use a second factor; one without it may only set it up (or sign out). */
  secondFactorRequired?: boolean;
  /** How long the console holds a decision so that it can be taken back (config.ts); 0: not at all. */
  undoSeconds?: number;
  /** Minutes without the operator's activity after which a session ends (idle.ts). */
  idleMinutes?: number;
  /**
   * The share of each capped account's day a firm without its own takes while others share the
   * pool (config.ts PAYINTAKE_DEFAULT_CAP_SHARE): what the firm form says an empty share means.
   */
  defaultCapShare?: number;
  /** A store error that does not fail the request it happened in (the login throttle's upkeep). */
  onError?(err: unknown): void;
}

/** What the service's methods share: the sign-in's context and the idle timeout. */
interface ConsoleContext extends SignInContext {
  idle: ReturnType<typeof createIdleTimeout>;
}

/**
 * Operator accounts and their console sessions. No HTTP here (operators/http/sign-in-routes.ts serves it).
 * A session is a random token in an HttpOnly cookie (only its hash is stored) plus a CSRF token the
 * page sends back on every change. Five wrong passwords in a row lock the account for 15 minutes;
 * twenty failed logins from one address within 15 minutes (any emails: password spraying) stop that
 * address from trying for the rest of the window. Both counts are kept in the store, shared by
 * every instance.
 */
export function createConsoleService(deps: ConsoleServiceDeps) {
  const { repos } = deps;
  const onError = deps.onError ?? (() => {});
  const throttle = createLoginThrottle({
    limit: ADDRESS_FAILURES,
    windowMs: ADDRESS_WINDOW_MS,
    store: repos.loginWindows,
    onError,
  });
  const guess = createGuess(repos);
  const required = deps.secondFactorRequired ?? false;
  const secondFactor = createSecondFactor({ repos, box: deps.box, now: deps.now, guess, required });
  const idle = createIdleTimeout(repos, deps.idleMinutes ?? DEFAULT_IDLE_MINUTES, deps.now);
  const ctx: ConsoleContext = {
    repos,
    box: deps.box,
    now: deps.now,
    onError,
    throttle,
    guess,
    state: newSignInState(),
    idle,
  };

  return {
    secondFactor,
    /** Whether this console requires a second factor of every operator. */
    secondFactorRequired: required,
    /** What the console's page needs to know of this server's settings, with the session. */
    settings: {
      second_factor_required: required,
      decision_undo_seconds: deps.undoSeconds ?? 0,
      session_idle_minutes: idle.minutes,
      default_cap_share: deps.defaultCapShare ?? 100,
    },
    createOperator: (email: string, role: Role, password: string | null, actor = "admin-api") =>
      createOperator(ctx, email, role, password, actor),
    resetSecondFactor: (email: string, actor: string) => resetSecondFactor(ctx, email, actor),
    listOperators: () => listOperators(ctx),
    updateOperator: (
      by: ConsoleOperator,
      id: number,
      changes: { role?: Role; active?: boolean; unlock?: boolean; reset_second_factor?: boolean },
      actor: string,
    ) => updateOperator(ctx, by, id, changes, actor),
    login: (email: string, password: string, address: string, code?: string, deviceCookie?: string) =>
      login(ctx, email, password, address, code, deviceCookie),
    session: (token: string) => session(ctx, token),
    activity: (session: { ref: SessionRef; lastActiveAt: number; expiresAt: number }, active: boolean) =>
      activity(ctx, session, active),
    purgeEndedSessions: () => purgeEndedSessions(ctx),
    logout: (token: string, operator?: ConsoleOperator) => logout(ctx, token, operator),
    changePassword: (operator: ConsoleOperator, current: string, next: string, keep: SessionRef) =>
      changePassword(ctx, operator, current, next, keep),
  };
}

export type ConsoleService = ReturnType<typeof createConsoleService>;

/** The live session of `token`: not expired, not idle, its operator active. */
async function session(
  deps: ConsoleContext,
  token: string,
): Promise<
  | { operator: ConsoleOperator; csrf: string; ref: SessionRef; lastActiveAt: number; expiresAt: number }
  | undefined
> {
  const { repos, idle } = deps;
  const now = deps.now();
  const found = await repos.operators.session(tokenHashOf(token), now, idle.activeAfter(now));
  if (!found) return undefined;
  return {
    operator: operatorView(found.operator),
    csrf: found.csrfToken,
    ref: { token, deviceHash: found.deviceHash },
    lastActiveAt: found.lastActiveAt,
    expiresAt: found.expiresAt,
  };
}

/**
 * A request of `session` passed its checks: `active` when it was the operator's doing (idle.ts),
 * then recorded as activity (at most once a minute). Answers the milliseconds left before the
 * session ends for want of activity, and before it ends in any case (its 12 hours).
 */
async function activity(
  deps: ConsoleContext,
  session: { ref: SessionRef; lastActiveAt: number; expiresAt: number },
  active: boolean,
): Promise<{ idleLeftMs: number; endsInMs: number }> {
  const { idle } = deps;
  const idleLeftMs = await idle.seen(tokenHashOf(session.ref.token), session.lastActiveAt, active);
  return { idleLeftMs, endsInMs: Math.max(0, session.expiresAt - deps.now()) };
}

/** Forgets sessions that ended, by their 12 hours or for want of activity. */
function purgeEndedSessions(deps: ConsoleContext) {
  const { repos, idle } = deps;
  const now = deps.now();
  return repos.operators.purgeExpiredSessions(now, idle.forgetBefore(now));
}

async function logout(deps: ConsoleContext, token: string, operator?: ConsoleOperator) {
  const { repos } = deps;
  await repos.operators.deleteSession(tokenHashOf(token));
  if (operator) {
    await repos.audited.event(
      { actor: operatorActor(operator.email), action: "operator.logout", at: deps.now() },
      "operator",
      String(operator.id),
      null,
      null,
    );
  }
}

/**
 * Changes the password and ends every other session of this operator; the browsers it knows,
 * but this session's, are forgotten.
 */
async function changePassword(
  deps: ConsoleContext,
  operator: ConsoleOperator,
  current: string,
  next: string,
  keep: SessionRef,
) {
  const { repos, guess } = deps;
  const row = await repos.operators.byEmail(operator.email);
  if (!row) return refusal("wrong_password", "current password is wrong");
  // Wrong current passwords count like wrong logins, against the session's browser first: a
  // stolen session cannot guess the password past the sign-in lockout, and a stranger's lock on
  // the account does not stop the operator. The guess that locks ends every session.
  const device = await sessionDeviceCounter(repos, keep.deviceHash, row.id, deps.now());
  const { outcome } = await guessFrom(guess, row, deps.now(), current, undefined, device);
  if (outcome === "locked" || outcome === "locking") {
    await repos.operators.deleteSessionsOf(row.id);
    return refusal("password_locked", "too many wrong passwords: signed out; try again later");
  }
  if (outcome === "wrong") {
    return refusal("wrong_password", "current password is wrong");
  }
  const nextHash = await hashPassword(next);
  await repos.audited.update(
    "operators",
    row.id,
    { password_hash: nextHash, updated_at: deps.now() },
    { actor: operatorActor(row.email), action: "operator.password", at: deps.now() },
  );
  await repos.operators.deleteSessionsOf(row.id);
  await repos.operatorDevices.forgetOf(row.id, keep.deviceHash);
  // Not opened if yet another change came in meanwhile: then this one signs in again.
  const checked = { passwordHash: nextHash, totpSealed: row.totp_sealed };
  const { token, csrf } = await renewSession(repos, row.id, keep, checked, deps.now());
  return { ok: true as const, value: { changed: true, csrf_token: csrf }, token };
}
