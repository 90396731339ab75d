import type { Migration } from "./migration.js";

/**
 * An attempt a worker stopped in the middle of keeps its number (issue 50, point 3).
 *
 * `callbacks.claimed_attempt`: the number of the attempt the last claim was for. A claim sets it to
 * one past the larger of `attempts` and itself; an attempt recorded brings `attempts` up to it; a
 * row given back unsent takes its claim back. So a row whose `claimed_attempt` is ahead of
 * `attempts` when it is claimed again was held by a worker that stopped (kill -9, a crash) with
 * that attempt under way or about to go out: the next attempt carries the next number, the cut
 * one is on record as interrupted, and a receiver that saw the cut one can tell the two apart.
 * Existing rows start at 0, which every claim reads as "none cut".
 */
const script = "ALTER TABLE callbacks ADD COLUMN claimed_attempt INTEGER NOT NULL DEFAULT 0;";

export const callbackClaims: Migration = {
  version: "20261209T1000_callback_claims",
  sqlite: script,
  postgres: script,
};
