import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { STORES } from "../support/harness.js";
import { type Receiver, startReceiver } from "../support/receiver.js";
import { killAll, type Server, startServe, stopServe } from "../support/spawn.js";
import {
  BATCH,
  expectConsistent,
  type ImportScene,
  importScene,
  newestLineId,
  postStatement,
  storedState,
  until,
} from "../support/statement-import.js";

/**
 * A bank statement's import killed with SIGKILL while its lines are being written (issue 34, "a
 * crash during an import leaves no line half-applied"), on both stores. Thousands of pending
 * deposits (3,000 on SQLite, 2,000 on PostgreSQL); a camt.053 of about 3,200 (2,150) lines, written
 * in batches of 500, approves nine in ten of them. The server is killed twice in the middle of an
 * import of that file and started again; after each kill the store holds whole batches only, the
 * first ones of the file, each line with its approval, its audit entry and its callback in the
 * outbox, and nothing of the batch that was being written. The same file imported once more then
 * completes: the lines written before count as duplicates, the others are written, the store ends
 * as one clean import leaves it, and every approval's callback reaches the merchant.
 *
 * Where the kill lands: on PostgreSQL inside a batch's open transaction, on state: the test holds a
 * row lock on a deposit that a line in the middle of the second new batch approves, and kills the
 * server once its transaction waits on that lock (pg_blocking_pids), having written the batch's
 * first 250 lines or more with their approvals, the locked deposit's line too. On SQLite, whose
 * file the server holds, as soon as the statement-lines API shows a line the import wrote.
 */
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await killAll();
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** SQLite's kill comes a batch or two after the line seen: a longer file keeps it mid-import. */
const DEPOSITS = { sqlite: 3_000, postgres: 2_000 };
const KILLS = 2;

/** Starts the import and returns how it ended, without throwing: "answered ..." or "cut: ...". */
function startImport(server: Server, scene: ImportScene) {
  const state: { ended?: string } = {};
  const done = postStatement(server.url, scene).then(
    (r) => {
      state.ended = `answered ${r.status}: ${JSON.stringify(r.json)}`;
    },
    (err: Error) => {
      state.ended = `cut: ${err.message}`;
    },
  );
  return { state, done };
}

/**
 * PostgreSQL: the import writes the known lines again (duplicates), one new batch, then opens the
 * next; the server is killed while that transaction, having written lines and approvals, waits on
 * a deposit this test holds locked.
 */
async function killInsideBatch(server: Server, scene: ImportScene, written: number): Promise<void> {
  const from = written + BATCH + BATCH / 2;
  const at = scene.refs.findIndex((r, i) => i >= from && scene.expected.get(r)?.state === "approved");
  expect(at, "a paying line in that batch").toBeGreaterThanOrEqual(from);
  expect(at).toBeLessThan(written + 2 * BATCH);
  const target = scene.expected.get(scene.refs[at] as string) as { depositId: number };
  const lock = new pg.Client({ connectionString: scene.env.DATABASE_URL });
  const watch = new pg.Client({ connectionString: scene.env.DATABASE_URL });
  await lock.connect();
  await watch.connect();
  try {
    await lock.query("BEGIN");
    await lock.query("SELECT id FROM transactions WHERE id = $1 FOR NO KEY UPDATE", [target.depositId]);
    const lockPid = (await lock.query("SELECT pg_backend_pid() AS pid")).rows[0].pid as number;
    const importing = startImport(server, scene);
    const blocked = await until(
      "the import's batch to wait on the locked deposit",
      async () =>
        (
          await watch.query(
            `SELECT pid FROM pg_stat_activity
             WHERE $1 = ANY(pg_blocking_pids(pid)) AND query ILIKE 'update "transactions"%'
               AND backend_xid IS NOT NULL`,
            [lockPid],
          )
        ).rows[0]?.pid as number | undefined,
      { abort: () => importing.state.ended },
    );
    // Committed meanwhile: exactly one more batch; the open one is invisible.
    const committed = await watch.query("SELECT count(*)::int AS n FROM statement_lines");
    expect(committed.rows[0].n).toBe(written + BATCH);
    server.child.kill("SIGKILL");
    await server.child.exited;
    await importing.done;
    expect(importing.state.ended).toMatch(/^cut: /);
    await lock.query("ROLLBACK");
    // The dead server's backend, free of the lock, finds its client gone and rolls back.
    await until("the killed server's transaction to end", async () =>
      (await watch.query("SELECT 1 FROM pg_stat_activity WHERE pid = $1", [blocked])).rowCount === 0
        ? true
        : undefined,
    );
  } finally {
    await lock.end().catch(() => {});
    await watch.end().catch(() => {});
  }
}

/** SQLite: kills the server as soon as the API shows a line the import wrote. */
async function killAfterNewLine(server: Server, scene: ImportScene): Promise<void> {
  const before = await newestLineId(server.url, scene);
  const importing = startImport(server, scene);
  await until(
    "the import to write a line",
    async () => ((await newestLineId(server.url, scene)) > before ? true : undefined),
    { abort: () => importing.state.ended },
  );
  server.child.kill("SIGKILL");
  await server.child.exited;
  await importing.done;
  expect(importing.state.ended, "the kill came before the import's answer").toMatch(/^cut: /);
}

/** Lines written: whole batches, the first ones of the file, each as the matching makes it. */
async function expectWholeBatches(scene: ImportScene, previously: number): Promise<number> {
  const stored = await storedState(scene);
  const found = expectConsistent(scene, stored);
  expect(found.lines % BATCH, `${found.lines} lines: not whole batches`).toBe(0);
  expect(found.lines).toBeGreaterThan(previously);
  expect(found.lines, "the kill interrupted the import").toBeLessThan(scene.totals.lines);
  const refs = new Set(stored.lines.map((l) => l.bank_ref));
  expect(scene.refs.slice(0, found.lines).every((r) => refs.has(r))).toBe(true);
  const approving = scene.refs
    .slice(0, found.lines)
    .filter((r) => scene.expected.get(r)?.state === "approved").length;
  expect(found.approved).toBe(approving);
  return found.lines;
}

/** What the lines after the first `written` make of a new import: its expected answer. */
function rest(scene: ImportScene, written: number) {
  const states = scene.refs.slice(written).map((r) => scene.expected.get(r)?.state);
  const approved = states.filter((s) => s === "approved").length;
  const unmatched = states.filter((s) => s === "unmatched").length;
  return {
    lines: scene.totals.lines,
    duplicates: written,
    credits: approved + unmatched,
    approved,
    suggested: 0,
    unmatched,
    settled: 0,
    after_cancellation: 0,
  };
}

describe.each(STORES)("a statement import killed with SIGKILL on %s", (kind) => {
  it(`${KILLS} kills mid-import leave whole batches only; the same file again completes it as one import would`, async () => {
    const started = Date.now();
    const receiver: Receiver = await startReceiver();
    cleanups.push(() => receiver.close());
    const scene = await importScene(kind, { deposits: DEPOSITS[kind], webhookUrl: receiver.url });
    cleanups.push(() => scene.cleanup());
    expect(scene.totals.lines).toBeGreaterThan((KILLS + 2) * BATCH);

    const cuts: number[] = [];
    let written = 0;
    for (let k = 0; k < KILLS; k++) {
      const server = await startServe(scene.env);
      if (kind === "postgres") await killInsideBatch(server, scene, written);
      else await killAfterNewLine(server, scene);
      written = await expectWholeBatches(scene, written);
      if (kind === "postgres") expect(written).toBe((k + 1) * BATCH);
      cuts.push(written);
    }

    const server = await startServe(scene.env);
    const last = await postStatement(server.url, scene);
    expect(last.status).toBe(200);
    expect(last.json).toMatchObject(rest(scene, written));
    const approvedIds = new Set(
      [...scene.expected.values()].flatMap((e) => (e.state === "approved" ? [e.depositId] : [])),
    );
    await until(
      "every approval's callback at the merchant",
      async () => {
        const got = new Set(receiver.received.map((r) => JSON.parse(r.body).id as number));
        return [...approvedIds].every((id) => got.has(id)) ? true : undefined;
      },
      { timeoutMs: 60_000, everyMs: 100 },
    );
    expect((await stopServe(server)).code).toBe(0);

    const stored = await storedState(scene);
    expect(expectConsistent(scene, stored)).toEqual({
      lines: scene.totals.lines,
      approved: scene.totals.approved,
    });
    expect(new Set(stored.lines.map((l) => l.bank_ref))).toEqual(new Set(scene.refs));
    expect(stored.imports).toHaveLength(KILLS + 1);
    expect(stored.deposits.filter((d) => d.status === "pending")).toHaveLength(
      DEPOSITS[kind] - scene.totals.approved,
    );
    const delivered = receiver.received.filter((r) => approvedIds.has(JSON.parse(r.body).id)).length;
    expect(receiver.received.length - delivered, "callbacks for deposits not approved").toBe(0);
    console.log(
      `statement import kill -9 (${kind}): ${scene.totals.lines} lines, ${scene.totals.approved} approvals; lines written at each kill ${cuts.join(", ")}; ${receiver.received.length} callback deliveries; ${((Date.now() - started) / 1000).toFixed(1)} s`,
    );
  }, 120_000);
});
