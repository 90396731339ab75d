import pg from "pg";
import { runDatabasePrefix } from "./migrated-template.js";
import { PG_BASE_URL, STORES } from "./stores.js";

/**
 * Once per run, in the test runner's own process: at its end, the PostgreSQL databases its tests
 * could not drop (a client of theirs was still connected) go, cutting whatever still holds them.
 */
export async function teardown(): Promise<void> {
  if (!STORES.includes("postgres")) return;
  const client = new pg.Client({ connectionString: PG_BASE_URL });
  await client.connect();
  try {
    const left = await client.query<{ datname: string }>(
      "SELECT datname FROM pg_database WHERE starts_with(datname, $1)",
      [runDatabasePrefix(process.pid)],
    );
    for (const { datname } of left.rows)
      await client.query(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`);
  } finally {
    await client.end();
  }
}
