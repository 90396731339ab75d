/**
 * Hot-path statements, prepared once, run without the query builder.
 *
 * Kysely builds, compiles and freezes a query tree on every call, which costs several times what
 * SQLite needs to run the statement (docs/BENCHMARKS.md). The few statements every deposit runs are written out here once
 * per dialect, prepared once (better-sqlite3 statement cache; PostgreSQL named prepared statements,
 * planned once per connection) and run directly. Everything else keeps using Kysely.
 */
export interface Prepared {
  /** Unique per statement text: PostgreSQL prepares it under this name on each connection. */
  readonly name: string;
  readonly postgres: string;
  readonly sqlite: string;
  /**
   * PostgreSQL plans it at every execution instead of keeping a plan per connection (see
   * `planEachTime`).
   */
  readonly planEachTime: boolean;
}

/**
 * One statement for both stores, written with PostgreSQL's `$1 … $n` placeholders. SQLite gets `?`
 * in their place, so each placeholder must appear exactly once and in order: checked here, when the
 * module loads, rather than at the first request.
 */
export function prepared(name: string, postgres: string, opts: { planEachTime?: boolean } = {}): Prepared {
  let expected = 1;
  const sqlite = postgres.replace(/\$(\d+)/g, (_m, n: string) => {
    if (Number(n) !== expected) throw new Error(`statement ${name}: placeholder $${n} out of order`);
    expected += 1;
    return "?";
  });
  return { name, postgres, sqlite, planEachTime: opts.planEachTime ?? false };
}

/**
 * For statements whose best plan depends on how big the tables are. A named PostgreSQL statement
 * switches to a generic plan after five executions and keeps it for the life of the connection; one
 * made while `transactions` was nearly empty (a new deployment, a new schema) can pick any index,
 * since every path then costs the same: the pending-deposit probe can settle on
 * transactions_status_idx (status only) instead of transactions_one_pending_uq, and then scans
 * every pending transaction on every deposit, slower as they accumulate (ADR 0003). Planned at each
 * execution, the planner sees the table as it is; that costs a fraction of a millisecond per
 * statement, on PostgreSQL's side.
 */
export const planEachTime = { planEachTime: true } as const;

export interface StatementRunner {
  /** Rows of a statement (a SELECT, or a write with RETURNING). */
  rows<R>(statement: Prepared, params: readonly unknown[]): Promise<R[]>;
  /** Number of rows a write changed. */
  changes(statement: Prepared, params: readonly unknown[]): Promise<number>;
}
