import type { Migration } from "./migration.js";

/**
 * The minute's purges of payment pages (jobs/purges.ts) by index, not by reading every page ever
 * opened: the pages whose payer details are still kept (a partial index, holding only the last
 * day's pages once the scrub has caught up), and all pages by their end, for the deletion 90 days
 * later.
 */
export const purgeIndexes: Migration = {
  version: "20261128T1100_purge_indexes",
  sqlite: "",
  postgres: "",
  indexes: [
    {
      name: "payment_sessions_unscrubbed_idx",
      table: "payment_sessions",
      definition: "(expires_at) WHERE request_sealed <> ''",
    },
    { name: "payment_sessions_expires_idx", table: "payment_sessions", definition: "(expires_at)" },
  ],
};
