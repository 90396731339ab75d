/**
 * The counting of failed guesses in a row and the lock they set, written once for every row that
 * keeps such a count: an operator's own (store/operators/operators.ts) and a login lock by key (store/operators/login-locks.ts).
 * Each names its three columns; the expressions go into that row's UPDATE (or upsert) so a count
 * and its lock change in one statement.
 */
import { type RawBuilder, sql } from "kysely";

export interface LockColumns {
  /** Failures in a row. */
  failures: string;
  /** When the lock ends (0: none). */
  lockedUntil: string;
  /** When the last counted failure came. */
  lastFailure: string;
}

export interface CountedFailure {
  failures: RawBuilder<number>;
  lockedUntil: RawBuilder<number>;
}

/**
 * One more failure: the one that makes `limit` in a row sets the lock until `lockUntil`. Failures
 * whose last one came before `forgetBefore` are forgotten, so the count starts again at this one
 * (and a lock already over stays as it was). The statement must also hold back while a lock runs
 * (`lockedUntil <= now` in its WHERE): a locked row counts nothing.
 */
export function countFailure(
  c: LockColumns,
  limit: number,
  lockUntil: number,
  forgetBefore: number,
): CountedFailure {
  const failures = sql.ref(c.failures);
  const locked = sql.ref(c.lockedUntil);
  const forgotten = sql`${sql.ref(c.lastFailure)} < ${forgetBefore}`;
  return {
    failures: sql<number>`CASE WHEN ${forgotten} THEN 1 ELSE ${failures} + 1 END`,
    lockedUntil: sql<number>`CASE WHEN ${forgotten} THEN ${locked} WHEN ${failures} >= ${limit - 1} THEN ${lockUntil} ELSE ${locked} END`,
  };
}

/**
 * Takes back one failure counted with `lockUntil`, and the lock if that count set it (a lock with
 * another end was set by someone else's count and stays). The statement must hold back when no
 * failure is counted (`failures > 0` in its WHERE).
 */
export function takeBackFailure(c: LockColumns, lockUntil: number): CountedFailure {
  const locked = sql.ref(c.lockedUntil);
  return {
    failures: sql<number>`${sql.ref(c.failures)} - 1`,
    lockedUntil: sql<number>`CASE WHEN ${locked} = ${lockUntil} THEN 0 ELSE ${locked} END`,
  };
}
