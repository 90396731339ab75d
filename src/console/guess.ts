import { verifyPassword } from "../auth/passwords.js";
import { matchTotp } from "../auth/totp.js";
import type { Repositories } from "../store/index.js";
import type { OperatorRow } from "../store/operators.js";
import { normaliseRecoveryCode, takeRecoveryCode } from "./recovery-codes.js";

export const LOCK_AFTER_FAILURES = 5;
export const LOCK_MS = 15 * 60_000;

export type GuessOutcome = "right" | "wrong" | "locking" | "locked" | "incomplete";

/**
 * One guess at an operator's password (and, where asked, a code from their authenticator) against
 * the operator's lockout: at sign-in, on the password page, when setting up or removing a second
 * factor. The attempt is counted before the (slow) password check, so guesses sent at once cannot
 * all pass a lock check that none of them has yet tripped; it is taken back when everything asked
 * for was right. `locking`: this wrong guess locked the account. `incomplete`: the password was
 * right and `second` says no code was given (the console asks for it, then sends both): nothing was
 * guessed wrong, so the attempt is taken back too. Counted, the page's password step made two
 * mistyped codes a lockout, and after one the password step alone locked the account again.
 */
export function createGuess(repos: Repositories) {
  return async function guess(
    op: OperatorRow,
    now: number,
    password: string,
    second?: () => Promise<boolean | "missing">,
  ): Promise<GuessOutcome> {
    const lockUntil = now + LOCK_MS;
    if (
      op.locked_until > now ||
      !(await repos.operators.claimAttempt(op.id, now, LOCK_AFTER_FAILURES, lockUntil))
    )
      return "locked";
    if (await verifyPassword(password, op.password_hash)) {
      const also = second === undefined ? true : await second();
      if (also === true) {
        await repos.operators.recordSuccess(op.id);
        return "right";
      }
      if (also === "missing") {
        await repos.operators.giveBackAttempt(op.id, lockUntil);
        return "incomplete";
      }
    }
    return ((await repos.operators.get(op.id))?.locked_until ?? 0) > now ? "locking" : "wrong";
  };
}

export type Guess = ReturnType<typeof createGuess>;

/**
 * Whether `code` is the operator's current code from `secret`, taking its time step so that it is
 * never taken twice (a code read over a shoulder, or sent twice at once).
 */
export async function takeCode(
  repos: Repositories,
  op: OperatorRow,
  secret: Buffer,
  code: string,
  now: number,
): Promise<boolean> {
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
  secret: Buffer,
  code: string,
  now: number,
): Promise<"totp" | "recovery" | undefined> {
  if (normaliseRecoveryCode(code) !== undefined)
    return (await takeRecoveryCode(repos, op.id, code, now)) ? "recovery" : undefined;
  return (await takeCode(repos, op, secret, code, now)) ? "totp" : undefined;
}
