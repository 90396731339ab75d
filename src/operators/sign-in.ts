import type { SecretBox } from "../crypto/secret-box.js";
import { operatorActor } from "../domain/actors.js";
import type { Repositories } from "../store/index.js";
import type { OperatorRow } from "../store/operators/operators.js";
import { newSessionToken, openSession } from "./console-sessions.js";
import {
  browserAfterSignIn,
  DEVICE_TTL_MS,
  deviceCounter,
  deviceTokensOf,
  isOperatorsBrowser,
  knownDeviceHash,
  unknownEmailLockKey,
} from "./devices.js";
import type { LoginThrottle } from "./login-throttle.js";
import { operatorView } from "./operator.js";
import { dummyHash, verifyPassword } from "./passwords.js";
import { auditRecoveryCodeUsed, openSecret } from "./second-factor.js";
import {
  FORGET_FAILURES_MS,
  type Guess,
  guessFrom,
  keyCounter,
  LOCK_MS,
  takeCodeOrRecovery,
} from "./sign-in-attempts.js";

/**
 * Twenty failed logins from one address within 15 minutes (any emails: password spraying) stop that
 * address from trying for the rest of the window; kept in the store, shared by every instance.
 */
export const ADDRESS_FAILURES = 20;
export const ADDRESS_WINDOW_MS = 15 * 60_000;
/**
 * Sign-ins under way at once on this instance. Each checks a password, and the process checks two
 * at a time (operators/passwords.ts), so more only wait; past this many a sign-in is refused at once
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

/** What a sign-in needs: the store, the clock, the address throttle, and this instance's counts. */
export interface SignInContext {
  repos: Repositories;
  box: SecretBox;
  now(): number;
  onError(err: unknown): void;
  throttle: LoginThrottle;
  guess: Guess;
  state: SignInState;
}

/** Per instance: the sign-ins under way (of all and of known browsers), and the last sweep. */
export interface SignInState {
  signInsUnderWay: number;
  knownBrowserSignInsUnderWay: number;
  sweptAt: number;
}

export function newSignInState(): SignInState {
  return { signInsUnderWay: 0, knownBrowserSignInsUnderWay: 0, sweptAt: Number.NEGATIVE_INFINITY };
}

/** Forgets browsers and login locks long unused, at most once a minute per instance. */
function sweep(deps: SignInContext, now: number) {
  const { repos, state, onError } = deps;
  if (now - state.sweptAt < 60_000) return;
  state.sweptAt = now;
  repos.operatorDevices.purge(now - DEVICE_TTL_MS).catch(onError);
  repos.loginLocks.purge(now - FORGET_FAILURES_MS, now).catch(onError);
}

/**
 * A place among the sign-ins under way (SIGN_INS_AT_ONCE), or one kept for known browsers; its
 * release, or undefined when there is none.
 */
async function signInPlace(deps: SignInContext, email: string, deviceCookie: string | undefined) {
  const { state } = deps;
  if (state.signInsUnderWay < SIGN_INS_AT_ONCE) {
    state.signInsUnderWay++;
    return () => {
      state.signInsUnderWay--;
    };
  }
  if (
    state.knownBrowserSignInsUnderWay >= KNOWN_BROWSER_SIGN_INS_AT_ONCE ||
    deviceTokensOf(deviceCookie).length === 0
  )
    return undefined;
  // Taken before the reads, so that a burst of such attempts cannot all pass the check at once.
  state.knownBrowserSignInsUnderWay++;
  const release = () => {
    state.knownBrowserSignInsUnderWay--;
  };
  // Given back unless this sign-in goes on with it, a failed read included (a pool wait or a
  // statement timeout during the very flood these places are for): kept, eight such failures
  // would use the places up until a restart.
  let known = false;
  try {
    known = await isOperatorsBrowser(deps.repos, email, deviceCookie, deps.now());
  } finally {
    if (!known) release();
  }
  return known ? release : undefined;
}

/**
 * A sign-in. An operator with a second factor also gives the current code from their
 * authenticator, or one of their recovery codes in its place: without it (or with a wrong or
 * used one) the password was right, and the answer says a code is needed. A wrong or used code
 * counts against the lockout as a wrong password does; no code at all (the page's first step)
 * is no guess and does not count. `deviceCookie`: the browser's known-browser cookie, as sent
 * (operators/devices.ts: a browser the operator used before counts against its own lock first).
 */
export async function login(
  deps: SignInContext,
  email: string,
  password: string,
  address: string,
  code?: string,
  deviceCookie?: string,
) {
  const { repos, throttle, guess } = deps;
  // Refused before anything is counted or checked: a flood must not queue without bound.
  const release = await signInPlace(deps, email, deviceCookie);
  if (!release) return { ok: false as const, reason: "busy" as const };
  try {
    const now = deps.now();
    sweep(deps, now);
    /** Sign-ins of known operators go to the audit log (unknown emails would only be noise). */
    const record = (op: OperatorRow, action: string, knownDevice: boolean) =>
      repos.audited.event(
        { actor: operatorActor(op.email), action, at: now },
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
      // Counted and locked as an operator's email would be (operators/devices.ts), after the same work.
      const counter = keyCounter(repos, unknownEmailLockKey(normalised));
      if (!(await counter.claim(now, now + LOCK_MS)))
        return { ok: false as const, reason: "locked" as const };
      await verifyPassword(password, await dummyHash());
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
    // itself, or any other, against the account's (operators/devices.ts).
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
    return { ok: true as const, token, csrf, operator: operatorView(op), device_cookie: browser.cookie };
  } finally {
    release();
  }
}
