import { createHash, randomBytes } from "node:crypto";
import type { Repositories } from "../store/index.js";
import type { CheckedCredentials } from "../store/operators/operators.js";

export const SESSION_TTL_MS = 12 * 3_600_000;

/** Only a token's hash is stored: a copy of the sessions table opens no session. */
export const tokenHashOf = (token: string) => createHash("sha256").update(token, "utf8").digest("hex");

/**
 * A console session as its routes know it: the cookie's token, and the hash of the known-browser
 * token it was signed in with (operators/devices.ts; null for sessions from before those).
 */
export interface SessionRef {
  token: string;
  deviceHash: string | null;
}

/** A session cookie's token: 256 random bits. */
export const newSessionToken = () => randomBytes(32).toString("base64url");
/** The session cookie's lifetime, in seconds (its Max-Age). */
export const SESSION_TTL_S = SESSION_TTL_MS / 1000;

/**
 * Opens a console session for `session.token` with a fresh CSRF token, if the operator's password
 * hash and second factor are still the `checked` ones (store/operators/operators.ts createSession says why).
 */
export async function openSession(
  repos: Repositories,
  operatorId: number,
  session: SessionRef,
  checked: CheckedCredentials,
  now: number,
  /** A sign-in: the operator is recorded as signed in from the session's browser, with the session. */
  signIn = false,
): Promise<{ opened: boolean; csrf: string }> {
  const csrf = randomBytes(24).toString("base64url");
  const opened = await repos.operators.createSession(
    {
      token_hash: tokenHashOf(session.token),
      operator_id: operatorId,
      csrf_token: csrf,
      device_hash: session.deviceHash,
      expires_at: now + SESSION_TTL_MS,
      created_at: now,
      last_active_at: now,
    },
    checked,
    signIn && session.deviceHash !== null ? { tokenHash: session.deviceHash, now } : undefined,
  );
  return { opened, csrf };
}

/**
 * After a change of how the operator signs in (password, second factor), the session it was made in
 * goes on under a new token (and CSRF token): the old cookie opens nothing, so whoever had copied it
 * is out too, and a session opened with the password alone is not raised to a full one in place.
 * The caller has ended the operator's sessions; the route sets the new cookie.
 */
export async function renewSession(
  repos: Repositories,
  operatorId: number,
  old: SessionRef,
  checked: CheckedCredentials,
  now: number,
): Promise<{ token: string | null; csrf: string }> {
  const token = newSessionToken();
  const { opened, csrf } = await openSession(
    repos,
    operatorId,
    { token, deviceHash: old.deviceHash },
    checked,
    now,
  );
  // Not opened when yet another change came in meanwhile: no session, so no cookie (sign in again).
  return { token: opened ? token : null, csrf };
}
