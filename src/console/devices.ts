import { createHash, randomBytes } from "node:crypto";
import type { Repositories } from "../store/index.js";
import { type AttemptCounter, keyCounter } from "./guess.js";
import { tokenHashOf } from "./sessions.js";

/**
 * Known browsers (ADR 0007, after the "device cookies" of OWASP's authentication guidance). Each
 * sign-in leaves a long-lived random token in the browser; it opens nothing by itself. At the next
 * sign-in from that browser, wrong guesses count against that browser's own lock, not the account's,
 * so a stranger who locks the account (five wrong passwords from anywhere) locks out only browsers
 * the operator never signed in from. A known browser that has locked itself falls back to the
 * account's count, as an unknown one.
 */
export const DEVICE_COOKIE = "payintake_device";
/** A browser no one signed in from for this long is unknown again (its cookie expires too). */
export const DEVICE_TTL_MS = 180 * 24 * 3_600_000;
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

/**
 * The lock of a known browser for one operator. The key carries the operator's id so that one
 * browser shared by several operators has a lock for each.
 */
const deviceLockKey = (tokenHash: string, operatorId: number) => `d:${operatorId}:${tokenHash}`;

/**
 * The lock of an email that is no active operator's, counted exactly as an operator's own: after
 * five wrong passwords it answers 423 as an operator's email does, so the lockout does not tell an
 * address which emails are operators'. A hash, so the table keeps no typed email (emails are easy
 * to guess, so this hides little; it keeps the table from being a list of them).
 */
export const unknownEmailLockKey = (email: string) =>
  `e:${createHash("sha256").update(email, "utf8").digest("base64url")}`;

/** The hash of a browser's token as its cookie gave it; undefined for none or one of another shape. */
export const deviceHashOf = (token: string | undefined): string | undefined =>
  token !== undefined && TOKEN_SHAPE.test(token) ? tokenHashOf(token) : undefined;

/**
 * The lock that a guess from the browser with `hash` (at sign-in: from its cookie; inside a
 * session: the one it was signed in from) counts against for `operatorId`, if the operator signed in
 * from it within DEVICE_TTL_MS; undefined otherwise (the account's lock applies).
 */
export async function knownDeviceCounter(
  repos: Repositories,
  hash: string | null | undefined,
  operatorId: number,
  now: number,
): Promise<AttemptCounter | undefined> {
  if (!hash) return undefined;
  if (!(await repos.operatorDevices.knows(hash, operatorId, now - DEVICE_TTL_MS))) return undefined;
  return keyCounter(repos, deviceLockKey(hash, operatorId));
}

/**
 * The token a browser keeps after a successful sign-in: its own if some operator already knows it
 * (a shared computer keeps one token), else a new one. Nothing is written: `rememberDevice` does,
 * once the session is open.
 */
export async function deviceTokenAfterSignIn(
  repos: Repositories,
  token: string | undefined,
  now: number,
): Promise<{ token: string; hash: string }> {
  const hash = deviceHashOf(token);
  if (
    token !== undefined &&
    hash !== undefined &&
    (await repos.operatorDevices.anyKnows(hash, now - DEVICE_TTL_MS))
  )
    return { token, hash };
  const fresh = randomBytes(32).toString("base64url");
  return { token: fresh, hash: tokenHashOf(fresh) };
}

export const rememberDevice = (repos: Repositories, hash: string, operatorId: number, now: number) =>
  repos.operatorDevices.remember(hash, operatorId, now);
