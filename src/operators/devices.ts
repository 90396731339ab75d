/**
 * Known browsers (ADR 0007, after the "device cookies" of OWASP's authentication guidance). Each
 * sign-in leaves a long-lived random token in the browser; it opens nothing by itself. At the next
 * sign-in from that browser, wrong guesses count against that browser's own lock, not the account's,
 * so a stranger who locks the account (five wrong passwords from anywhere) locks out only browsers
 * the operator never signed in from. A known browser that has locked itself falls back to the
 * account's count, as an unknown one.
 */
import { createHash, randomBytes } from "node:crypto";
import type { Repositories } from "../store/index.js";
import { tokenHashOf } from "./console-sessions.js";
import { type AttemptCounter, keyCounter } from "./sign-in-attempts.js";

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

/** At most this many tokens in one browser's cookie: one per operator who signs in from it. */
const MAX_TOKENS = 5;

/**
 * The tokens a browser's cookie holds, newest first, each one an operator signed in with from it.
 * One per operator, not one per browser: a token the browser already had is never given to the
 * operator signing in, so someone who plants a token they know (their own) in a colleague's browser
 * does not make their own browser known to the colleague.
 */
export function deviceTokensOf(cookie: string | undefined): string[] {
  if (!cookie) return [];
  return cookie
    .split(".")
    .filter((t) => TOKEN_SHAPE.test(t))
    .slice(0, MAX_TOKENS);
}

/**
 * The hash of the token among `tokens` that `operatorId` signed in with within DEVICE_TTL_MS, or
 * undefined. Asked for an email that is no operator's too (`operatorId` undefined: nobody's), so a
 * cookie costs the same reads whichever the email.
 */
export async function knownDeviceHash(
  repos: Repositories,
  tokens: readonly string[],
  operatorId: number | undefined,
  now: number,
): Promise<string | undefined> {
  if (tokens.length === 0) return undefined;
  const hashes = tokens.map(tokenHashOf);
  return repos.operatorDevices.knownOf(hashes, operatorId ?? 0, now - DEVICE_TTL_MS);
}

/**
 * Whether the browser's cookie holds a token the active operator with `email` signed in with. The
 * same two reads whichever the email, as at sign-in, so the time taken names no operator.
 */
export async function isOperatorsBrowser(
  repos: Repositories,
  email: string,
  cookie: string | undefined,
  now: number,
): Promise<boolean> {
  const tokens = deviceTokensOf(cookie);
  if (tokens.length === 0) return false;
  const op = await repos.operators.byEmail(email.trim().toLowerCase());
  return (await knownDeviceHash(repos, tokens, op?.active === 1 ? op.id : undefined, now)) !== undefined;
}

/** The lock a guess from the known browser with `hash` counts against for `operatorId`. */
export const deviceCounter = (repos: Repositories, hash: string, operatorId: number): AttemptCounter =>
  keyCounter(repos, deviceLockKey(hash, operatorId));

/**
 * Inside a session: the lock of the browser it was signed in from (`hash`, null for sessions from
 * before known browsers), if the operator still knows it; undefined otherwise (the account's applies).
 */
export async function sessionDeviceCounter(
  repos: Repositories,
  hash: string | null,
  operatorId: number,
  now: number,
): Promise<AttemptCounter | undefined> {
  if (hash === null) return undefined;
  const known = await repos.operatorDevices.knownOf([hash], operatorId, now - DEVICE_TTL_MS);
  return known === undefined ? undefined : deviceCounter(repos, hash, operatorId);
}

/**
 * After a successful sign-in: the hash of the browser's token for this operator (the one it knows,
 * or a new one), and the cookie value (a new token goes first; the oldest beyond five drop off).
 */
export function browserAfterSignIn(
  tokens: readonly string[],
  knownHash: string | undefined,
): { hash: string; cookie: string } {
  if (knownHash !== undefined) return { hash: knownHash, cookie: tokens.join(".") };
  const fresh = randomBytes(32).toString("base64url");
  return { hash: tokenHashOf(fresh), cookie: [fresh, ...tokens].slice(0, MAX_TOKENS).join(".") };
}
