import type { Migration } from "./migration.js";

/**
 * Console sessions end after a while without the operator doing anything (operators/idle.ts):
 * `operator_sessions.last_active_at` is when the session last saw its operator, written at most
 * once a minute. Sessions open at the upgrade count as active at its time, so nobody is signed out
 * by the upgrade itself; their 12-hour limit is unchanged. The default (0: idle since 1970) is for
 * the statement only: a session opened without it would be refused at once, never kept open.
 */
const script = (bigint: string, nowMs: string) => `
ALTER TABLE operator_sessions ADD COLUMN last_active_at ${bigint} NOT NULL DEFAULT 0;
UPDATE operator_sessions SET last_active_at = ${nowMs};
`;

export const sessionActivity: Migration = {
  version: "20261125T1200_session_activity",
  sqlite: script("INTEGER", "CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)"),
  postgres: script("BIGINT", "CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000 AS BIGINT)"),
};
