import { createLoginThrottle } from "../auth/login-throttle.js";
import { hashPassword, newPassword, verifyPassword } from "../auth/passwords.js";
import type { SecretBox } from "../crypto/secret-box.js";
import type { Repositories } from "../store/index.js";
import type { OperatorRow } from "../store/operators.js";
import {
  browserAfterSignIn,
  DEVICE_TTL_MS,
  deviceCounter,
  deviceTokensOf,
  isOperatorsBrowser,
  knownDeviceHash,
  sessionDeviceCounter,
  unknownEmailLockKey,
} from "./devices.js";
import {
  createGuess,
  FORGET_FAILURES_MS,
  guessFrom,
  keyCounter,
  LOCK_MS,
  takeCodeOrRecovery,
} from "./guess.js";
import { createIdleTimeout, DEFAULT_IDLE_MINUTES } from "./idle.js";
import { auditRecoveryCodeUsed, createSecondFactor, openSecret } from "./second-factor.js";
import { newSessionToken, openSession, renewSession, type SessionRef, tokenHashOf } from "./sessions.js";

export { LOCK_AFTER_FAILURES, LOCK_MS } from "./guess.js";
export { SESSION_TTL_MS } from "./sessions.js";

/**
 * Operator accounts and their console sessions. No HTTP here (http/console/routes.ts serves it).
 * A session is a random token in an HttpOnly cookie (only its hash is stored) plus a CSRF token the
 * page sends back on every change. Five wrong passwords in a row lock the account for 15 minutes;
 * twenty failed logins from one address within 15 minutes (any emails: password spraying) stop that
 * address from trying for the rest of the window. Both counts are kept in the store, shared by
 * every instance.
 */
export const ADDRESS_FAILURES = 20;
export const ADDRESS_WINDOW_MS = 15 * 60_000;
/**
 * Sign-ins under way at once on this instance. Each checks a password, and the process checks two
 * at a time (auth/passwords.ts), so more only wait; past this many a sign-in is refused at once
 * (503, nothing counted), where before a flood of attempts from many addresses queued without
 * bound, each holding its connection, and an operator's own sign-in waited minutes behind them.
 * Above the thirty a concurrent burst from one office may send (the address limit stops at twenty).
 */
export const SIGN_INS_AT_ONCE = 32;
/**
 * Beyond those, this many more from browsers their operator signed in from before (devices.ts): a
 * flood of strangers' attempts then turns strangers away while operators at their own browsers
 * still get in (after the checks already queued, a few seconds), as ADR 0007 keeps those browsers
 * working through a stranger's lockout. Telling costs two reads, never a password check.
 */
export const KNOWN_BROWSER_SIGN_INS_AT_ONCE = 8;
export type Role = OperatorRow["role"];

// Verified against when the email is unknown, so an unknown email costs the same time as a wrong password.
let dummyHash: Promise<string> | undefined;

export interface ConsoleOperator {
  id: number;
  email: string;
  role: Role;
  /** Whether sign-in also asks for a code from an authenticator app. */
  second_factor: boolean;
}

const view = (o: OperatorRow): ConsoleOperator => ({
  id: o.id,
  email: o.email,
  role: o.role,
  second_factor: o.totp_sealed !== null,
});

export function roleAllows(role: Role, needed: Role): boolean {
  const rank = { viewer: 0, operator: 1, admin: 2 } as const;
  return rank[role] >= rank[needed];
}

export function createConsoleService(deps: {
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
  /** A store error that does not fail the request it happened in (the login throttle's upkeep). */
  onError?(err: unknown): void;
}) {
  const { repos } = deps;
  const throttle = createLoginThrottle({
    limit: ADDRESS_FAILURES,
    windowMs: ADDRESS_WINDOW_MS,
    store: repos.loginWindows,
    onError: deps.onError ?? (() => {}),
  });

  const guess = createGuess(repos);
  const onError = deps.onError ?? (() => {});
  let sweptAt = Number.NEGATIVE_INFINITY;
  /** Forgets browsers and login locks long unused, at most once a minute per instance. */
  const sweep = (now: number) => {
    if (now - sweptAt < 60_000) return;
    sweptAt = now;
    repos.operatorDevices.purge(now - DEVICE_TTL_MS).catch(onError);
    repos.loginLocks.purge(now - FORGET_FAILURES_MS, now).catch(onError);
  };
  const required = deps.secondFactorRequired ?? false;
  const secondFactor = createSecondFactor({ repos, box: deps.box, now: deps.now, guess, required });
  const idle = createIdleTimeout(repos, deps.idleMinutes ?? DEFAULT_IDLE_MINUTES, deps.now);
  let signInsUnderWay = 0;
  let knownBrowserSignInsUnderWay = 0;

  /**
   * A place among the sign-ins under way (SIGN_INS_AT_ONCE), or one kept for known browsers; its
   * release, or undefined when there is none.
   */
  async function signInPlace(email: string, deviceCookie: string | undefined) {
    if (signInsUnderWay < SIGN_INS_AT_ONCE) {
      signInsUnderWay++;
      return () => {
        signInsUnderWay--;
      };
    }
    if (
      knownBrowserSignInsUnderWay >= KNOWN_BROWSER_SIGN_INS_AT_ONCE ||
      deviceTokensOf(deviceCookie).length === 0
    )
      return undefined;
    // Taken before the reads, so that a burst of such attempts cannot all pass the check at once.
    knownBrowserSignInsUnderWay++;
    const release = () => {
      knownBrowserSignInsUnderWay--;
    };
    // Given back unless this sign-in goes on with it, a failed read included (a pool wait or a
    // statement timeout during the very flood these places are for): kept, eight such failures
    // would use the places up until a restart.
    let known = false;
    try {
      known = await isOperatorsBrowser(repos, email, deviceCookie, deps.now());
    } finally {
      if (!known) release();
    }
    return known ? release : undefined;
  }

  return {
    secondFactor,
    /** Whether this console requires a second factor of every operator. */
    secondFactorRequired: required,
    /** What the console's page needs to know of this server's settings, with the session. */
    settings: {
      second_factor_required: required,
      decision_undo_seconds: deps.undoSeconds ?? 0,
      session_idle_minutes: idle.minutes,
    },

    async createOperator(email: string, role: Role, password: string | null, actor = "admin-api") {
      const normalised = email.trim().toLowerCase();
      if (await repos.operators.byEmail(normalised)) {
        return { ok: false as const, status: 400 as const, message: `operator ${normalised} exists already` };
      }
      const plain = password ?? newPassword();
      const now = deps.now();
      const row = await repos.audited.insertUnique(
        "operators",
        {
          email: normalised,
          role,
          password_hash: await hashPassword(plain),
          failed_logins: 0,
          locked_until: 0,
          active: 1,
          created_at: now,
          updated_at: now,
        },
        { actor, action: "operator.create", at: now },
      );
      // Another request created the same email between the check above and this insert.
      if (!row) {
        return { ok: false as const, status: 400 as const, message: `operator ${normalised} exists already` };
      }
      return {
        ok: true as const,
        value: { ...view(row), ...(password === null ? { password: plain } : {}) },
      };
    },

    /**
     * An operator's second factor removed (they lost their phone), from the admin API. Their
     * sessions end, as with the console's reset: the lost phone may still be signed in.
     */
    async resetSecondFactor(email: string, actor: string) {
      const row = await repos.operators.byEmail(email.trim().toLowerCase());
      if (!row) return { ok: false as const, status: 404 as const, message: "operator not found" };
      const now = deps.now();
      const after = await repos.audited.update(
        "operators",
        row.id,
        { totp_sealed: null, totp_pending_sealed: null, updated_at: now },
        { actor, action: "operator.update", at: now },
      );
      await repos.operators.deleteSessionsOf(row.id);
      await repos.operatorDevices.forgetOf(row.id, null);
      await repos.recoveryCodes.deleteOf(row.id);
      return { ok: true as const, value: view(after ?? row) };
    },

    async listOperators() {
      return (await repos.operators.list()).map((o) => ({
        ...view(o),
        active: o.active === 1,
        locked: o.locked_until > deps.now(),
      }));
    },

    /**
     * An admin changes another operator's role, switches them off or resets their second factor
     * (their sessions end with either of the last two).
     * Not oneself: an admin who demoted themselves by mistake could leave nobody to undo it.
     */
    async updateOperator(
      by: ConsoleOperator,
      id: number,
      changes: { role?: Role; active?: boolean; unlock?: boolean; reset_second_factor?: boolean },
      actor: string,
    ) {
      if (id === by.id) {
        return {
          ok: false as const,
          status: 400 as const,
          message: "you cannot change your own role or access",
        };
      }
      const row = await repos.audited.updateOperator(
        id,
        {
          role: changes.role,
          active: changes.active === undefined ? undefined : changes.active ? 1 : 0,
          ...(changes.unlock ? { failed_logins: 0, locked_until: 0 } : {}),
          // An operator who lost their phone signs in with their password alone, then sets it up again.
          ...(changes.reset_second_factor ? { totp_sealed: null, totp_pending_sealed: null } : {}),
          updated_at: deps.now(),
        },
        { actor, action: "operator.update", at: deps.now() },
      );
      if (row === "last_admin") {
        return {
          ok: false as const,
          status: 409 as const,
          message: "the last active admin cannot be removed",
        };
      }
      if (!row) return { ok: false as const, status: 404 as const, message: "operator not found" };
      // Switched off, or the second factor reset (the lost phone may still be signed in): the
      // operator's sessions end.
      // Their browsers are forgotten with them: one a phisher signed in from would otherwise keep
      // counting its guesses apart from the account's.
      if (row.active === 0 || changes.reset_second_factor) {
        await repos.operators.deleteSessionsOf(id);
        await repos.operatorDevices.forgetOf(id, null);
      }
      // The recovery codes belonged to the second factor reset: a new one comes with new codes.
      if (changes.reset_second_factor) await repos.recoveryCodes.deleteOf(id);
      return { ok: true as const, value: { ...view(row), active: row.active === 1 } };
    },

    /**
     * A sign-in. An operator with a second factor also gives the current code from their
     * authenticator, or one of their recovery codes in its place: without it (or with a wrong or
     * used one) the password was right, and the answer says a code is needed. A wrong or used code
     * counts against the lockout as a wrong password does; no code at all (the page's first step)
     * is no guess and does not count. `deviceCookie`: the browser's known-browser cookie, as sent
     * (console/devices.ts: a browser the operator used before counts against its own lock first).
     */
    async login(email: string, password: string, address: string, code?: string, deviceCookie?: string) {
      // Refused before anything is counted or checked: a flood must not queue without bound.
      const release = await signInPlace(email, deviceCookie);
      if (!release) return { ok: false as const, reason: "busy" as const };
      try {
        const now = deps.now();
        sweep(now);
        /** Sign-ins of known operators go to the audit log (unknown emails would only be noise). */
        const record = (op: OperatorRow, action: string, knownDevice: boolean) =>
          repos.audited.event(
            { actor: `operator:${op.email}`, action, at: now },
            "operator",
            String(op.id),
            null,
            knownDevice ? { address, known_device: true } : { address },
          );
        const attempt = await throttle.attempt(address, now);
        if (!attempt.ok) {
          const retryAfterS = Math.ceil(attempt.retryAfterMs / 1000);
          return { ok: false as const, reason: "throttled" as const, retryAfterS };
        }
        const normalised = email.trim().toLowerCase();
        const op = await repos.operators.byEmail(normalised);
        const tokens = deviceTokensOf(deviceCookie);
        const known = await knownDeviceHash(repos, tokens, op?.active === 1 ? op.id : undefined, now);
        if (op?.active !== 1) {
          // Counted and locked as an operator's email would be (console/devices.ts), after the same work.
          const counter = keyCounter(repos, unknownEmailLockKey(normalised));
          if (!(await counter.claim(now, now + LOCK_MS)))
            return { ok: false as const, reason: "locked" as const };
          dummyHash ??= hashPassword(newPassword());
          await verifyPassword(password, await dummyHash);
          return { ok: false as const, reason: "invalid" as const };
        }
        let codeWrong = false;
        let taken: "totp" | "recovery" | undefined;
        const sealed = op.totp_sealed;
        const second =
          sealed === null
            ? undefined
            : async () => {
                if (code === undefined || code === "") return "missing" as const;
                taken = await takeCodeOrRecovery(repos, op, openSecret(deps.box, sealed, op.id), code, now);
                codeWrong = taken === undefined;
                return !codeWrong;
              };
        // A browser the operator signed in from counts against its own lock; one that has locked
        // itself, or any other, against the account's (console/devices.ts).
        const device = known === undefined ? undefined : deviceCounter(repos, known, op.id);
        const { outcome, onDevice } = await guessFrom(guess, op, now, password, second, device);
        if (outcome === "locked") return { ok: false as const, reason: "locked" as const };
        if (outcome === "incomplete") {
          // Nor for the address: counted, every two-step sign-in left one failure there, and twenty
          // in 15 minutes stopped an office behind one address.
          await attempt.succeeded();
          return { ok: false as const, reason: "code" as const };
        }
        if (outcome !== "right") {
          await record(op, outcome === "locking" ? "operator.locked" : "operator.login_failed", !!device);
          if (!codeWrong) return { ok: false as const, reason: "invalid" as const };
          // The password was right: the answer names the code, or the lock this wrong code set (not
          // "Wrong email or password", which sent the operator to retype a right password). A lock
          // of the browser alone is no lock yet: its next try counts on the account.
          if (outcome === "wrong" || onDevice) return { ok: false as const, reason: "wrong_code" as const };
          return { ok: false as const, reason: "locked" as const };
        }
        // Audited once taken, also if no session is opened below: the code is spent either way.
        if (taken === "recovery") await auditRecoveryCodeUsed(repos, op, now, { address });
        const token = newSessionToken();
        const checked = { passwordHash: op.password_hash, totpSealed: sealed };
        const browser = browserAfterSignIn(tokens, known);
        const session = { token, deviceHash: browser.hash };
        const { opened, csrf } = await openSession(repos, op.id, session, checked, now, true);
        // The password was changed, the second factor turned on or off, or the operator switched off
        // while it was being checked: what was checked no longer signs in, so this fails as a wrong
        // password does (counted, audited).
        if (!opened) {
          await record(op, "operator.login_failed", !!device);
          return { ok: false as const, reason: "invalid" as const };
        }
        await attempt.succeeded();
        await record(op, "operator.login", !!device);
        return { ok: true as const, token, csrf, operator: view(op), device_cookie: browser.cookie };
      } finally {
        release();
      }
    },

    /** The live session of `token`: not expired, not idle, its operator active. */
    async session(
      token: string,
    ): Promise<
      | { operator: ConsoleOperator; csrf: string; ref: SessionRef; lastActiveAt: number; expiresAt: number }
      | undefined
    > {
      const now = deps.now();
      const found = await repos.operators.session(tokenHashOf(token), now, idle.activeAfter(now));
      if (!found) return undefined;
      return {
        operator: view(found.operator),
        csrf: found.csrfToken,
        ref: { token, deviceHash: found.deviceHash },
        lastActiveAt: found.lastActiveAt,
        expiresAt: found.expiresAt,
      };
    },

    /**
     * A request of `session` passed its checks: `active` when it was the operator's doing (idle.ts),
     * then recorded as activity (at most once a minute). Answers the milliseconds left before the
     * session ends for want of activity, and before it ends in any case (its 12 hours).
     */
    async activity(
      session: { ref: SessionRef; lastActiveAt: number; expiresAt: number },
      active: boolean,
    ): Promise<{ idleLeftMs: number; endsInMs: number }> {
      const idleLeftMs = await idle.seen(tokenHashOf(session.ref.token), session.lastActiveAt, active);
      return { idleLeftMs, endsInMs: Math.max(0, session.expiresAt - deps.now()) };
    },

    /** Forgets sessions that ended, by their 12 hours or for want of activity. */
    purgeEndedSessions() {
      const now = deps.now();
      return repos.operators.purgeExpiredSessions(now, idle.forgetBefore(now));
    },

    async logout(token: string, operator?: ConsoleOperator) {
      await repos.operators.deleteSession(tokenHashOf(token));
      if (operator) {
        await repos.audited.event(
          { actor: `operator:${operator.email}`, action: "operator.logout", at: deps.now() },
          "operator",
          String(operator.id),
          null,
          null,
        );
      }
    },

    /**
     * Changes the password and ends every other session of this operator; the browsers it knows,
     * but this session's, are forgotten.
     */
    async changePassword(operator: ConsoleOperator, current: string, next: string, keep: SessionRef) {
      const row = await repos.operators.byEmail(operator.email);
      if (!row) return { ok: false as const, status: 400 as const, message: "current password is wrong" };
      // Wrong current passwords count like wrong logins, against the session's browser first: a
      // stolen session cannot guess the password past the sign-in lockout, and a stranger's lock on
      // the account does not stop the operator. The guess that locks ends every session.
      const device = await sessionDeviceCounter(repos, keep.deviceHash, row.id, deps.now());
      const { outcome } = await guessFrom(guess, row, deps.now(), current, undefined, device);
      if (outcome === "locked" || outcome === "locking") {
        await repos.operators.deleteSessionsOf(row.id);
        return {
          ok: false as const,
          status: 423 as const,
          message: "too many wrong passwords: signed out; try again later",
        };
      }
      if (outcome === "wrong") {
        return { ok: false as const, status: 400 as const, message: "current password is wrong" };
      }
      const nextHash = await hashPassword(next);
      await repos.audited.update(
        "operators",
        row.id,
        { password_hash: nextHash, updated_at: deps.now() },
        { actor: `operator:${row.email}`, action: "operator.password", at: deps.now() },
      );
      await repos.operators.deleteSessionsOf(row.id);
      await repos.operatorDevices.forgetOf(row.id, keep.deviceHash);
      // Not opened if yet another change came in meanwhile: then this one signs in again.
      const checked = { passwordHash: nextHash, totpSealed: row.totp_sealed };
      const { token, csrf } = await renewSession(repos, row.id, keep, checked, deps.now());
      return { ok: true as const, value: { changed: true, csrf_token: csrf }, token };
    },
  };
}

export type ConsoleService = ReturnType<typeof createConsoleService>;
