import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { STORES } from "../support/harness.js";
import { type Receiver, startReceiver } from "../support/receiver.js";
import { killAll, startServe, stopServe } from "../support/spawn.js";
import { importScene, postStatement, until } from "../support/statement-import.js";

/**
 * A statement import still busy past the server's allowance for a silent connection is answered
 * when it ends: that allowance (PAYINTAKE_CONNECTION_SILENCE_MS, 60 s by default; Fastify's
 * connectionTimeout, app.ts) would close the connection while the import goes on, and the CLI would
 * get no counts, no doubts. The statement route gives its own connection IMPORT_SILENCE_MS instead.
 * The server here allows 6 s, so that the import need only be busy for 9.
 *
 * Made busy on state rather than by load: the test holds row locks on three deposits that lines of
 * the first batch approve and lets go of one every 3 s (each wait under the 30 s statement
 * timeout), so the import is busy for 9 s. Found by statement-import-instances.test.ts on a loaded
 * machine (two instances importing 2,150 lines at once took more than 60 s; one request was cut).
 */
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await killAll();
  for (const c of cleanups.splice(0).reverse()) await c();
});

const SILENCE_MS = 6_000;
const HOLD_MS = 3_000;

describe.runIf(STORES.includes("postgres"))(
  "a statement import busy past a silent connection's allowance (PostgreSQL)",
  () => {
    it("is answered, not cut off at the allowance while it goes on to complete", async () => {
      const receiver: Receiver = await startReceiver();
      cleanups.push(() => receiver.close());
      const scene = await importScene("postgres", { deposits: 300, webhookUrl: receiver.url });
      cleanups.push(() => scene.cleanup());
      const server = await startServe({
        ...scene.env,
        PAYINTAKE_CONNECTION_SILENCE_MS: String(SILENCE_MS),
        PAYINTAKE_CONSOLE_HEARTBEAT_MS: "1000",
      });
      const targets = scene.refs
        .filter((r) => scene.expected.get(r)?.state === "approved")
        .slice(10, 13)
        .map((r) => (scene.expected.get(r) as { depositId: number }).depositId);
      const watch = new pg.Client({ connectionString: scene.env.DATABASE_URL });
      await watch.connect();
      cleanups.push(() => watch.end());
      const locks: { client: pg.Client; pid: number }[] = [];
      for (const id of targets) {
        const lock = new pg.Client({ connectionString: scene.env.DATABASE_URL });
        await lock.connect();
        cleanups.push(() => lock.end());
        await lock.query("BEGIN");
        await lock.query("SELECT id FROM transactions WHERE id = $1 FOR NO KEY UPDATE", [id]);
        const pid = (await lock.query("SELECT pg_backend_pid() AS pid")).rows[0].pid as number;
        locks.push({ client: lock, pid });
      }
      const t0 = Date.now();
      const outcome = postStatement(server.url, scene).then(
        (r) => `answered ${r.status} after ${Date.now() - t0} ms: ${JSON.stringify(r.json)}`,
        (err: Error & { cause?: Error }) =>
          `cut after ${Date.now() - t0} ms: ${err.cause?.message ?? err.message}`,
      );
      for (const lock of locks) {
        await until("the import to wait on the next locked deposit", async () =>
          (
            await watch.query(
              `SELECT 1 FROM pg_stat_activity
                 WHERE $1 = ANY(pg_blocking_pids(pid)) AND query ILIKE 'update "transactions"%'`,
              [lock.pid],
            )
          ).rowCount
            ? true
            : undefined,
        );
        await new Promise((r) => setTimeout(r, HOLD_MS));
        await lock.client.query("ROLLBACK");
      }
      // The import completes on the server whatever became of its connection.
      await until("every line written", async () => {
        const n = (await watch.query("SELECT count(*)::int AS n FROM statement_lines")).rows[0].n as number;
        return n === scene.totals.lines ? true : undefined;
      });
      expect((await stopServe(server)).code).toBe(0);
      const said = await outcome;
      expect(said).toMatch(/^answered 200 /);
      // Busy past the allowance indeed: silent longer than any other request's connection may be.
      expect(Number(/after (\d+) ms/.exec(said)?.[1])).toBeGreaterThan(SILENCE_MS);
    }, 60_000);
  },
);
