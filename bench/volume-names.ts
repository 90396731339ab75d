/**
 * test/support/statements.ts and statement-import.ts still import the payers' names from here; the
 * names live in bench/shared/names.ts. This file goes once they import that one.
 */
export { BANKS, FIRST_NAMES, LAST_NAMES, plainLower } from "./shared/names.js";
