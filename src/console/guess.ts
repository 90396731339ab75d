import { verifyPassword } from "../auth/passwords.js";
import { matchTotp } from "../auth/totp.js";
import type { Repositories } from "../store/index.js";
import type { OperatorRow } from "../store/operators.js";

export const LOCK_AFTER_FAILURES = 5;
export const LOCK_MS = 15 * 60_000;

export type GuessOutcome = "right" | "wrong" | "locking" | "locked";

/**
 * One guess at an operator's password (and, where asked, a code from their authenticator) against
 * the operator's lockout: at sign-in, on the password page, when setting up or removing a second
 * factor. The attempt is counted before the (slow) password check, so guesses sent at once cannot
 * all pass a lock check that none of them has yet tripped; it is taken back only when everything
 * asked for was right. `locking`: this wrong guess locked the account.
 */
export function createGuess(repos: Repositories) {
  return async function guess(
    op: OperatorRow,
    now: number,
    password: string,
    second?: () => Promise<boolean>,
  ): Promise<GuessOutcome> {
    if (
      op.locked_until > now ||
      !(await repos.operators.claimAttempt(op.id, now, LOCK_AFTER_FAILURES, now + LOCK_MS))
    )
      return "locked";
    if ((await verifyPassword(password, op.password_hash)) && (second === undefined || (await second()))) {
      await repos.operators.recordSuccess(op.id);
      return "right";
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
