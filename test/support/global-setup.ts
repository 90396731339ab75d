import pg from "pg";
import { runDatabasePrefix } from "./migrated-template.js";
import { PG_BASE_URL, STORES } from "./stores.js";

/**
 * Once per run, in the test runner's own process: the PostgreSQL databases its tests are done with
 * (closed to connections by their store's cleanup: migrated-template.ts) are dropped here, a batch a
 * minute, and what is left at the run's end then. PostgreSQL checkpoints before it drops a database:
 * a drop at each store's end made its test wait for the pages every other test had written to reach
 * the disk, and made a checkpoint every few seconds, after which each page a test changes is logged
 * whole again. A batch of drops at once shares its checkpoints.
 */
const BATCH_EVERY_MS = 60_000;
/** Drops under way at once: each waits for a checkpoint, and those asked for together share one. */
const AT_ONCE = 4;

let timer: NodeJS.Timeout | undefined;
let batch: Promise<void> = Promise.resolve();

export function setup(): void {
  if (!STORES.includes("postgres")) return;
  timer = setInterval(() => {
    batch = batch.then(() => dropDatabases(false)).catch(() => undefined);
  }, BATCH_EVERY_MS);
  timer.unref();
}

export async function teardown(): Promise<void> {
  if (!STORES.includes("postgres")) return;
  clearInterval(timer);
  await batch;
  // Whatever still holds one is cut: every test has ended.
  await dropDatabases(true);
}

/**
 * This run's databases that no test uses any more (`force`: all of them, whoever is connected). A
 * database a test's client still holds is left for a later batch: cut now, the client's connection
 * would fail under a test that may not have ended (PostgreSQL refuses the drop after 5 s).
 */
async function dropDatabases(force: boolean): Promise<void> {
  const found = await withClient((client) =>
    client.query<{ datname: string }>(
      `SELECT datname FROM pg_database WHERE starts_with(datname, $1)${force ? "" : " AND NOT datallowconn"}`,
      [runDatabasePrefix(process.pid)],
    ),
  );
  const names = found.rows.map((r) => r.datname);
  await Promise.all(
    Array.from({ length: Math.min(AT_ONCE, names.length) }, () =>
      withClient(async (client) => {
        for (let name = names.pop(); name !== undefined; name = names.pop()) {
          await client
            .query(`DROP DATABASE IF EXISTS ${name}${force ? " WITH (FORCE)" : ""}`)
            .catch((err: { code?: string }) => {
              if (force || err.code !== "55006") throw err;
            });
        }
      }),
    ),
  );
}

async function withClient<T>(use: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: PG_BASE_URL });
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}
