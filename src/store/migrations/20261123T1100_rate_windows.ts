import type { Migration } from "./migration.js";

/** Request counts per key and rate window, shared by every instance (http/rate-limit/shared-rate-limiter.ts). */
const script = (bigint: string) => `
CREATE TABLE rate_windows (
  key TEXT NOT NULL,
  window_start ${bigint} NOT NULL,
  count INTEGER NOT NULL CHECK (count >= 0),
  PRIMARY KEY (key, window_start)
);
`;

export const rateWindows: Migration = {
  version: "20261123T1100_rate_windows",
  sqlite: script("INTEGER"),
  postgres: script("BIGINT"),
};
