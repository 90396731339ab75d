import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { STORES } from "../support/harness.js";
import { type Receiver, startReceiver } from "../support/receiver.js";
import { killAll, startServe, stopServe } from "../support/spawn.js";
import { importScene, postStatement, until } from "../support/statement-import.js";

/**
 * KNOWN BUG, skipped unless PAYINTAKE_KNOWN_BUGS=1 (it fails today, in about 90 s): a statement
 * import that is still busy 60 s after its upload ended is cut off without an answer, though the
 * server goes on and completes it.
 *
 * src/main/app.ts sets Fastify's `connectionTimeout: 60_000` (line 58), Node's socket inactivity
 * timeout, which also runs while a handler works. The statement route
 * (src/reconciliation/http/statement-routes.ts) reads the whole body in the import's first pass and
 * then writes nothing until the import is done, so after 60 s without a byte Node destroys the
 * socket: the client gets "other side closed", no status, no counts, no doubts. The CLI expects
 * "minutes, not seconds" (src/main/admin-client.ts waits 600 s for the answer to a file) and
 * docs/reconciliation.md accepts files up to 200 MB, yet docs/BENCHMARKS.md measures 100,000 lines
 * in 28.5 s on PostgreSQL: a file of a quarter of a million lines, or a smaller one on a busy
 * machine or waiting on another instance's import of the same file, runs past 60 s and loses its
 * answer. Found by statement-import-instances.test.ts on a loaded machine (two instances importing
 * 2,150 lines at once took more than 60 s; one request was answered, the other cut).
 *
 * Reproduced here on state rather than by load: the test holds row locks on three deposits that
 * lines of the first batch approve and lets go of one every 25 s (each wait under the 30 s
 * statement timeout), so the import is busy for 75 s. Expected: the import's answer (200 and its
 * counts). Today: the connection is closed at 60 s; the lines are all written afterwards.
 */
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await killAll();
  for (const c of cleanups.splice(0).reverse()) await c();
});

const HOLD_MS = 25_000;

describe.runIf(STORES.includes("postgres"))("a statement import busy for more than 60 s (PostgreSQL)", () => {
  it.skipIf(process.env.PAYINTAKE_KNOWN_BUGS !== "1")(
    "KNOWN BUG: is answered, not cut off at 60 s while it goes on to complete",
    async () => {
      const receiver: Receiver = await startReceiver();
      cleanups.push(() => receiver.close());
      const scene = await importScene("postgres", { deposits: 300, webhookUrl: receiver.url });
      cleanups.push(() => scene.cleanup());
      const server = await startServe(scene.env);
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
      expect(await outcome).toMatch(/^answered 200 /);
    },
    180_000,
  );
});
