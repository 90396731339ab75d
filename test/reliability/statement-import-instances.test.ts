import { afterEach, describe, expect, it } from "vitest";
import { STORES } from "../support/harness.js";
import { type Receiver, startReceiver } from "../support/receiver.js";
import { killAll, type Server, startServe, stopServe } from "../support/spawn.js";
import {
  expectConsistent,
  type ImportScene,
  importScene,
  postStatement,
  storedState,
  until,
} from "../support/statement-import.js";

/**
 * One bank statement imported twice at the same moment (issue 34, "two instances importing the
 * same statement at once approve each deposit once"): on PostgreSQL by two server instances on one
 * schema, on SQLite (one process holds the store) by two requests to the one server. 2,000 pending
 * deposits; the camt.053 of about 2,150 lines (five batches) approves 1,800 of them. Both requests
 * are sent, then both awaited. Each line is recorded once, by one import or the other; each deposit
 * approved once (one decision, one audit entry by service:reconcile, one callback in the outbox);
 * the two answers add up to one import's counts, and each answer's counts are the lines it wrote.
 */
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await killAll();
  for (const c of cleanups.splice(0).reverse()) await c();
});

const DEPOSITS = 1_000;

type Answer = Awaited<ReturnType<typeof postStatement>>;

/** The two answers: each read every line; between them each line was new once. */
function expectAnswersAddUp(scene: ImportScene, a: Answer, b: Answer): void {
  expect([a.status, b.status]).toEqual([200, 200]);
  const sum = (k: string) => (a.json[k] as number) + (b.json[k] as number);
  expect([a.json.lines, b.json.lines]).toEqual([scene.totals.lines, scene.totals.lines]);
  expect({
    duplicates: sum("duplicates"),
    credits: sum("credits"),
    approved: sum("approved"),
    suggested: sum("suggested"),
    unmatched: sum("unmatched"),
    settled: sum("settled"),
    after_cancellation: sum("after_cancellation"),
  }).toEqual({
    // Lines new to one import are known to the other.
    duplicates: scene.totals.lines,
    credits: scene.totals.credits,
    approved: scene.totals.approved,
    suggested: 0,
    unmatched: scene.totals.unmatched,
    settled: 0,
    after_cancellation: 0,
  });
}

describe.each(STORES)("one statement imported twice at the same moment on %s", (kind) => {
  it(`${kind === "postgres" ? "two instances" : "two requests to one server"}: each line recorded once, each deposit approved once, the answers add up`, async () => {
    const started = Date.now();
    const receiver: Receiver = await startReceiver();
    cleanups.push(() => receiver.close());
    const scene = await importScene(kind, { deposits: DEPOSITS, webhookUrl: receiver.url });
    cleanups.push(() => scene.cleanup());
    const servers: Server[] = [await startServe(scene.env)];
    if (kind === "postgres") servers.push(await startServe(scene.env));
    const [first, second] = [servers[0] as Server, servers.at(-1) as Server];

    const [a, b] = await Promise.all([postStatement(first.url, scene), postStatement(second.url, scene)]);
    expectAnswersAddUp(scene, a, b);
    // Once more, afterwards: every line known, nothing decided.
    const again = await postStatement(first.url, scene);
    expect(again.json).toMatchObject({
      lines: scene.totals.lines,
      duplicates: scene.totals.lines,
      credits: 0,
      approved: 0,
    });
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
    for (const s of servers) expect((await stopServe(s)).code).toBe(0);

    const stored = await storedState(scene);
    expect(expectConsistent(scene, stored)).toEqual({
      lines: scene.totals.lines,
      approved: scene.totals.approved,
    });
    expect(new Set(stored.lines.map((l) => l.bank_ref))).toEqual(new Set(scene.refs));
    // One callback per approval at the merchant too (deliveries of one callback share its id).
    const callbackIds = new Map<number, Set<string>>();
    for (const r of receiver.received) {
      const id = JSON.parse(r.body).id as number;
      expect(approvedIds.has(id), `a callback for deposit ${id}, not approved`).toBe(true);
      callbackIds.set(id, (callbackIds.get(id) ?? new Set()).add(String(r.headers["x-callback-id"])));
    }
    expect([...callbackIds.values()].filter((ids) => ids.size !== 1)).toEqual([]);

    // Which import wrote which line: each answer's counts are its own lines.
    expect(stored.imports).toHaveLength(3);
    const [importA, importB] = [a, b].map((answer) => answer.json.statements[0].import_id as number);
    for (const [answer, importId] of [
      [a, importA],
      [b, importB],
    ] as const) {
      const own = stored.lines.filter((l) => l.import_id === importId);
      expect(own.length).toBe(answer.json.lines - answer.json.duplicates);
      expect(own.filter((l) => l.state === "approved").length).toBe(answer.json.approved);
      expect(own.filter((l) => l.state === "unmatched").length).toBe(answer.json.unmatched);
    }
    // Both imports were under way at once: each had begun writing before either answered.
    const begun = stored.imports.slice(0, 2).map((i) => i.created_at);
    expect(Math.max(...begun)).toBeLessThan(Math.min(a.at, b.at));
    console.log(
      `one statement imported twice at once (${kind}): ${scene.totals.lines} lines; the first request wrote ${a.json.lines - a.json.duplicates} (${a.json.approved} approvals), the second ${b.json.lines - b.json.duplicates} (${b.json.approved}); ${receiver.received.length} callback deliveries; ${((Date.now() - started) / 1000).toFixed(1)} s`,
    );
  }, 180_000);
});
