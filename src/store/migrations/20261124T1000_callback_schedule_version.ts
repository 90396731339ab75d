import type { Migration } from "./migration.js";

/**
 * Each redelivery request bumps a callback's schedule version. An attempt records against the
 * version it was claimed at: one that was in flight when an operator asked for a redelivery keeps
 * its attempt on record and hands the row back due at once, instead of either writing its own next
 * step over the fresh schedule or letting a second send start beside it.
 */
const script = `
ALTER TABLE callbacks ADD COLUMN schedule_version INTEGER NOT NULL DEFAULT 0;
`;

export const callbackScheduleVersion: Migration = {
  version: "20261124T1000_callback_schedule_version",
  sqlite: script,
  postgres: script,
};
