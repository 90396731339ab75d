import type { Repositories } from "../store/index.js";
import type { OperatorRow } from "../store/operators/operators.js";
import { verifyPassword } from "./passwords.js";
import { normaliseRecoveryCode, takeRecoveryCode } from "./recovery-codes.js";
import { matchTotp } from "./totp.js";

export const LOCK_AFTER_FAILURES = 5;
export const LOCK_MS = 15 * 60_000;
/** Failures with none for this long are forgotten: a lock holds only a burst of wrong guesses. */
export const FORGET_FAILURES_MS = 24 * 3_600_000;

export type GuessOutcome = "right" | "wrong" | "locking" | "locked" | "incomplete";

/**
 * Where a guess is counted: the operator's own row (the lock every unknown browser shares, and the
 * one the console shows and an admin lifts) or a login lock by key (operators/devices.ts: a known
 * browser of the operator, or an email that is no operator's). Both count alike.
 */
export interface AttemptCounter {
  /** Counts an attempt unless locked at `now`; false: locked, nothing counted. */
  claim(now: number, lockUntil: number): Promise<boolean>;
  /** Everything asked for was right: the failures are forgotten. */
  succeeded(): Promise<void>;
  /** Takes back the attempt claimed with `lockUntil`, and the lock if it set one. */
  giveBack(lockUntil: number): Promise<void>;
  /** When the lock ends (0 or past: none). */
  lockedUntil(): Promise<number>;
}

export function operatorCounter(repos: Repositories, op: OperatorRow): AttemptCounter {
  return {
    async claim(now, lockUntil) {
      // Read first, as a login lock does (store/operators/login-locks.ts): a lock that holds costs one read
      // on either, so the 423 of an operator's email and of any other take the same work.
      const current = (await repos.operators.get(op.id))?.locked_until ?? 0;
      return (
        current <= now &&
        (await repos.operators.claimAttempt(
          op.id,
          now,
          LOCK_AFTER_FAILURES,
          lockUntil,
          now - FORGET_FAILURES_MS,
        ))
      );
    },
    succeeded: () => repos.operators.recordSuccess(op.id),
    giveBack: (lockUntil) => repos.operators.giveBackAttempt(op.id, lockUntil),
    async lockedUntil() {
      return (await repos.operators.get(op.id))?.locked_until ?? 0;
    },
  };
}

export function keyCounter(repos: Repositories, key: string): AttemptCounter {
  return {
    claim: (now, lockUntil) =>
      repos.loginLocks.claim(key, now, LOCK_AFTER_FAILURES, lockUntil, now - FORGET_FAILURES_MS),
    succeeded: () => repos.loginLocks.clear(key),
    giveBack: (lockUntil) => repos.loginLocks.giveBack(key, lockUntil),
    lockedUntil: () => repos.loginLocks.lockedUntil(key),
  };
}

/**
 * One guess at an operator's password (and, where asked, a code from their authenticator) against
 * a lockout (`counter`, by default the operator's own): at sign-in, on the password page, when
 * setting up or removing a second factor. The attempt is counted before the (slow) password check,
 * so guesses sent at once cannot all pass a lock check that none of them has yet tripped; it is
 * taken back when everything asked for was right. `locking`: this wrong guess set the lock.
 * `incomplete`: the password was right and `second` says no code was given (the console asks for
 * it, then sends both): nothing was guessed wrong, so the attempt is taken back too. Counted, the
 * page's password step made two mistyped codes a lockout, and after one the password step alone
 * locked the account again.
 */
export function createGuess(repos: Repositories) {
  return async function guess(
    op: OperatorRow,
    now: number,
    password: string,
    second?: () => Promise<boolean | "missing">,
    counter: AttemptCounter = operatorCounter(repos, op),
  ): Promise<GuessOutcome> {
    const lockUntil = now + LOCK_MS;
    if (!(await counter.claim(now, lockUntil))) return "locked";
    if (await verifyPassword(password, op.password_hash)) {
      const also = second === undefined ? true : await second();
      if (also === true) {
        await counter.succeeded();
        return "right";
      }
      if (also === "missing") {
        await counter.giveBack(lockUntil);
        return "incomplete";
      }
    }
    return (await counter.lockedUntil()) > now ? "locking" : "wrong";
  };
}

export type Guess = ReturnType<typeof createGuess>;

/**
 * A guess from a browser: counted against the browser's own lock (`device`, when the operator knows
 * the browser: operators/devices.ts), or, once that is set or for any other browser, against the
 * account's. A right guess counted on the account also forgets the browser's failures: a success
 * forgets the failures, wherever it was counted. `onDevice`: counted on the browser's lock.
 */
export async function guessFrom(
  guess: Guess,
  op: OperatorRow,
  now: number,
  password: string,
  second: (() => Promise<boolean | "missing">) | undefined,
  device: AttemptCounter | undefined,
): Promise<{ outcome: GuessOutcome; onDevice: boolean }> {
  if (device) {
    const outcome = await guess(op, now, password, second, device);
    if (outcome !== "locked") return { outcome, onDevice: true };
  }
  const outcome = await guess(op, now, password, second);
  if (outcome === "right" && device) await device.succeeded();
  return { outcome, onDevice: false };
}

/**
 * Whether `code` is the operator's current code from `secret`, taking its time step so that it is
 * never taken twice (a code read over a shoulder, or sent twice at once).
 */
export async function takeCode(
  repos: Repositories,
  op: OperatorRow,
  /** Undefined: the sealed secret did not open (second-factor.ts openSecret); no code matches. */
  secret: Buffer | undefined,
  code: string,
  now: number,
): Promise<boolean> {
  if (secret === undefined) return false;
  const step = matchTotp(secret, code, now);
  return step !== undefined && (await repos.operators.takeTotpStep(op.id, step));
}

/**
 * `takeCode`, or one of the operator's recovery codes in its place (they never look alike: six
 * digits against ten letters and digits); which one was taken, undefined for neither. Where a
 * second factor that is on is asked for: sign-in, removing it, new recovery codes.
 */
export async function takeCodeOrRecovery(
  repos: Repositories,
  op: OperatorRow,
  secret: Buffer | undefined,
  code: string,
  now: number,
): Promise<"totp" | "recovery" | undefined> {
  if (normaliseRecoveryCode(code) !== undefined)
    return (await takeRecoveryCode(repos, op.id, code, now)) ? "recovery" : undefined;
  return (await takeCode(repos, op, secret, code, now)) ? "totp" : undefined;
}
