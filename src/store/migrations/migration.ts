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
   * The PostgreSQL extensions the index needs (an operator class of one is named `{extension}.…` in
   * the definition). Such an index exists on PostgreSQL only, and only where every one of them is
   * installed or can be (into the schema payintake_ext); elsewhere it is left out, and the searches
   * it would serve use the index it replaces, if that one can be had, or read the table.
   */
  extensions?: readonly PgExtension[];
  /**
   * An earlier migration's index that this one serves in its place: dropped once this one is built
   * (CONCURRENTLY where this one was), kept where this one cannot be had.
   */
  replaces?: string;
  /** Built on PostgreSQL only: SQLite's planner is better served by the index it would replace. */
  postgresOnly?: true;
}

export type PgExtension = "pg_trgm" | "btree_gin";
