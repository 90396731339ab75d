import type { Migration } from "./migration.js";

/**
 * Sign-in lockouts a stranger cannot turn against an operator (ADR 0007).
 *
 * `operator_devices`: the browsers an operator has signed in from, each known by a random token in a
 * long-lived cookie, kept here only as a hash. One browser has one token, so it can be known to
 * several operators (a shared back-office computer): one row per (token, operator).
 *
 * `login_locks`: failures in a row and the lock they set, for what is not an operator row: a known
 * browser of an operator (its wrong guesses lock that browser only) and an email that is no active
 * operator's (counted exactly as an operator's is, so the lockout does not tell the two apart). Keys
 * are hashes, never an email or a token.
 *
 * `operators.last_failed_at`: failures a day old are forgotten, on an operator's row as on a login
 * lock, so the two count alike and the locks table does not grow for good. Failures counted before
 * this migration count from its time (0 would forget them at the next failure).
 *
 * `operator_sessions.device_hash`: the browser a session was signed in from, so that a guess made
 * inside the session (the password page, two-step settings) counts against that browser's lock
 * first, as at sign-in. Null for sessions from before.
 */
const script = (bigint: string, nowMs: string) => `
CREATE TABLE operator_devices (
  token_hash TEXT NOT NULL,
  operator_id INTEGER NOT NULL REFERENCES operators(id),
  created_at ${bigint} NOT NULL,
  seen_at ${bigint} NOT NULL,
  PRIMARY KEY (token_hash, operator_id)
);
CREATE INDEX operator_devices_seen_idx ON operator_devices (seen_at);

CREATE TABLE login_locks (
  key TEXT PRIMARY KEY,
  failures INTEGER NOT NULL CHECK (failures >= 0),
  locked_until ${bigint} NOT NULL,
  updated_at ${bigint} NOT NULL
);
CREATE INDEX login_locks_updated_idx ON login_locks (updated_at);

ALTER TABLE operators ADD COLUMN last_failed_at ${bigint} NOT NULL DEFAULT 0;
UPDATE operators SET last_failed_at = ${nowMs} WHERE failed_logins > 0;
ALTER TABLE operator_sessions ADD COLUMN device_hash TEXT;
`;

export const knownDevices: Migration = {
  version: "20261124T2300_known_devices",
  sqlite: script("INTEGER", "CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)"),
  postgres: script("BIGINT", "CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000 AS BIGINT)"),
};
