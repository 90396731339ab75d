import type { Migration } from "./migration.js";

/**
 * Failed console sign-ins per client address (hashed), shared by every instance on one PostgreSQL:
 * password spraying spread over instances meets one count (operators/login-throttle.ts). A row is one
 * address's window: when it started and how many attempts it has counted.
 */
const script = (bigint: string) => `
CREATE TABLE login_windows (
  key TEXT PRIMARY KEY,
  since ${bigint} NOT NULL,
  count INTEGER NOT NULL CHECK (count >= 0)
);
`;

export const loginWindows: Migration = {
  version: "20261124T1900_login_windows",
  sqlite: script("INTEGER"),
  postgres: script("BIGINT"),
};
