/**
 * Hot-path statements, prepared once, run without the query builder.
 *
 * Kysely builds, compiles and freezes a query tree on every call: about 60 µs per statement, several
 * times what SQLite needs to run it. The few statements every deposit runs are written out here once
 * per dialect, prepared once (better-sqlite3 statement cache; PostgreSQL named prepared statements,
 * planned once per connection) and run directly. Everything else keeps using Kysely.
 */
export interface Prepared {
  /** Unique per statement text: PostgreSQL prepares it under this name on each connection. */
  readonly name: string;
  readonly postgres: string;
  readonly sqlite: string;
}

/**
 * One statement for both stores, written with PostgreSQL's `$1 … $n` placeholders. SQLite gets `?`
 * in their place, so each placeholder must appear exactly once and in order: checked here, when the
 * module loads, rather than at the first request.
 */
export function prepared(name: string, postgres: string): Prepared {
  let expected = 1;
  const sqlite = postgres.replace(/\$(\d+)/g, (_m, n: string) => {
    if (Number(n) !== expected) throw new Error(`statement ${name}: placeholder $${n} out of order`);
    expected += 1;
    return "?";
  });
  return { name, postgres, sqlite };
}

export interface StatementRunner {
  /** Rows of a statement (a SELECT, or a write with RETURNING). */
  rows<R>(statement: Prepared, params: readonly unknown[]): Promise<R[]>;
  /** Number of rows a write changed. */
  changes(statement: Prepared, params: readonly unknown[]): Promise<number>;
}
