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

/**
 * The lock a sign-in from this browser for `operatorId` counts against, if the browser's token
 * (from its cookie) is one the operator signed in with within DEVICE_TTL_MS; undefined otherwise.
 */
export async function knownDeviceCounter(
  repos: Repositories,
  token: string | undefined,
  operatorId: number,
  now: number,
): Promise<AttemptCounter | undefined> {
  if (token === undefined || !TOKEN_SHAPE.test(token)) return undefined;
  const hash = tokenHashOf(token);
  if (!(await repos.operatorDevices.knows(hash, operatorId, now - DEVICE_TTL_MS))) return undefined;
  return keyCounter(repos, deviceLockKey(hash, operatorId));
}

/**
 * After a successful sign-in: the browser's token, kept (a browser already known, to this or
 * another operator, keeps its token) or new, and remembered for this operator from `now`.
 */
export async function rememberDevice(
  repos: Repositories,
  token: string | undefined,
  operatorId: number,
  now: number,
): Promise<string> {
  const known =
    token !== undefined &&
    TOKEN_SHAPE.test(token) &&
    (await repos.operatorDevices.anyKnows(tokenHashOf(token), now - DEVICE_TTL_MS));
  const kept = known ? token : randomBytes(32).toString("base64url");
  await repos.operatorDevices.remember(tokenHashOf(kept), operatorId, now);
  return kept;
}
