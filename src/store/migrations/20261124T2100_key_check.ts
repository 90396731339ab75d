import type { Migration } from "./migration.js";

/**
 * Which master key the store's secrets are sealed with: a check value derived from the key
 * (crypto/key-check.ts), never the key, written by the first start and compared by every later
 * one, so that a server given another key refuses to start instead of failing every signed request
 * and sealing new secrets under a second key. One row per key purpose; "master" is the only one.
 */
const script = (bigint: string) => `
CREATE TABLE store_keys (
  purpose TEXT PRIMARY KEY,
  key_check TEXT NOT NULL,
  created_at ${bigint} NOT NULL
);
`;

export const keyCheck: Migration = {
  version: "20261124T2100_key_check",
  sqlite: script("INTEGER"),
  postgres: script("BIGINT"),
};
