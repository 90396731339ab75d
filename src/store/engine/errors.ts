import { NoAnswerError } from "./coalesce.js";
import type { Dialect } from "./open.js";

/**
 * Which unique index a failed insert ran into. SQLite names the columns in its message, PostgreSQL
 * names the index, so both are checked.
 */
export type UniqueViolation = "reference" | "one_pending" | "other";

export function uniqueViolation(err: unknown): UniqueViolation | null {
  const e = err as { code?: string; constraint?: string; message?: string };
  if (e?.code === "23505") {
    if (e.constraint === "transactions_reference_uq") return "reference";
    if (e.constraint === "transactions_one_pending_uq") return "one_pending";
    return "other";
  }
  if (e?.code === "SQLITE_CONSTRAINT_UNIQUE" || e?.code === "SQLITE_CONSTRAINT_PRIMARYKEY") {
    const msg = e.message ?? "";
    if (msg.includes("transactions.reference")) return "reference";
    if (msg.includes("transactions.user_id")) return "one_pending";
    return "other";
  }
  return null;
}

/**
 * A deposit would take its firm past a bound of pending deposits: the `firm_pending` trigger's
 * refusal (migration 20261129T1000), a CHECK violation naming `firm_pending_bound` on PostgreSQL,
 * a trigger's ABORT with that text on SQLite.
 */
export function pendingBoundViolation(err: unknown): boolean {
  const e = err as { code?: string; constraint?: string; message?: string } | null;
  if (e?.code === "23514") return e.constraint === "firm_pending_bound";
  return e?.code === "SQLITE_CONSTRAINT_TRIGGER" && (e.message ?? "").includes("firm_pending_bound");
}

/** A CHECK constraint refused the row (both stores). */
export function checkViolation(err: unknown): boolean {
  const code = (err as { code?: string } | null)?.code;
  return code === "23514" || code === "SQLITE_CONSTRAINT_CHECK";
}

/**
 * Whether a write that threw may still have been written. SQLite's statements fail whole (and a
 * failed commit stops the process); a PostgreSQL error with a SQLSTATE was the server refusing the
 * statement. Without one (a batch given up on after its time, a connection lost mid-statement) the
 * row may yet be there.
 */
export function writeMayHaveHappened(err: unknown, dialect: Dialect): boolean {
  if (err instanceof NoAnswerError) return true;
  if (dialect === "sqlite") return false;
  const code = (err as { code?: unknown } | null)?.code;
  return !(typeof code === "string" && /^[0-9A-Z]{5}$/.test(code));
}
