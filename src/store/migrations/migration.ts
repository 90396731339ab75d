/** A schema change as plain SQL, written once per store dialect. */
export interface Migration {
  version: string;
  sqlite: string;
  postgres: string;
  /**
   * Indexes on tables that may already hold millions of rows. SQLite builds them in the
   * migration's transaction (it has no other way: writes wait, docs/operations.md gives the
   * times). PostgreSQL builds each on a large table with CREATE INDEX CONCURRENTLY before the
   * migration's transaction, so writes go on while it reads the table, and on a small one in the
   * transaction; a build that a crash left invalid is dropped and made again on the next start.
   *
   * PostgreSQL builds them before the migration's script runs, SQLite after it: an index here is on
   * a table and columns that an earlier migration made.
   */
  indexes?: readonly IndexBuild[];
}

export interface IndexBuild {
  name: string;
  table: string;
  /** What follows the table: `[USING method] (columns) [WHERE …]`. */
  definition: string;
  /**
   * A PostgreSQL extension the index needs (its operator class is named `{extension}.…` in the
   * definition). Such an index exists on PostgreSQL only, and only where the extension is installed
   * or can be (into the schema payintake_ext); elsewhere it is left out and the searches it would
   * serve read the table.
   */
  extension?: "pg_trgm";
}
