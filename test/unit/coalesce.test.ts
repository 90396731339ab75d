import { describe, expect, it } from "vitest";
import { Coalescer } from "../../src/store/engine/coalesce.js";

/** A run whose batches the test releases by hand, to see what waits and what goes together. */
function gatedRun() {
  const batches: { inputs: number[]; release(outs?: unknown[]): void; fail(err: Error): void }[] = [];
  let running = 0;
  let maxRunning = 0;
  const run = (inputs: readonly number[]) =>
    new Promise<readonly unknown[]>((resolve, reject) => {
      running += 1;
      maxRunning = Math.max(maxRunning, running);
      batches.push({
        inputs: [...inputs],
        release: (outs) => {
          running -= 1;
          resolve(outs ?? inputs.map((n) => n * 10));
        },
        fail: (err) => {
          running -= 1;
          reject(err);
        },
      });
    });
  return { batches, run, maxRunning: () => maxRunning };
}

/** A few turns of the event loop: enough for a finished batch to free its slot and the next to start. */
async function turn(): Promise<void> {
  for (let i = 0; i < 3; i++) await new Promise((resolve) => setImmediate(resolve));
}

/** A coalescer of numbers; batches time out only where a test says so. */
function coalescer(
  run: (inputs: readonly number[]) => Promise<readonly unknown[]>,
  limits: { maxInFlight: number; maxBatch: number; timeoutMs?: number },
): Coalescer<number, number> {
  return new Coalescer<number, number>(run as never, { timeoutMs: 60_000, ...limits });
}

describe("Coalescer", () => {
  it("sends a lone call at once, as a batch of one", async () => {
    const gate = gatedRun();
    const c = coalescer(gate.run, { maxInFlight: 2, maxBatch: 10 });
    const answer = c.submit(7);
    await turn();
    expect(gate.batches.map((b) => b.inputs)).toEqual([[7]]);
    gate.batches[0]?.release();
    expect(await answer).toBe(70);
  });

  it("puts calls of one loop turn together, queues the rest while maxInFlight batches run, in order", async () => {
    const gate = gatedRun();
    const c = coalescer(gate.run, { maxInFlight: 1, maxBatch: 3 });
    const first = [1, 2].map((n) => c.submit(n));
    await turn();
    const later = [3, 4, 5, 6].map((n) => c.submit(n));
    await turn();
    // One batch in flight: the later calls wait for it.
    expect(gate.batches.map((b) => b.inputs)).toEqual([[1, 2]]);
    gate.batches[0]?.release();
    expect(await Promise.all(first)).toEqual([10, 20]);
    await turn();
    // maxBatch splits what queued meanwhile; still one at a time.
    expect(gate.batches.map((b) => b.inputs)).toEqual([
      [1, 2],
      [3, 4, 5],
    ]);
    gate.batches[1]?.release();
    await turn();
    await turn();
    expect(gate.batches[2]?.inputs).toEqual([6]);
    gate.batches[2]?.release();
    expect(await Promise.all(later)).toEqual([30, 40, 50, 60]);
    expect(gate.maxRunning()).toBe(1);
  });

  it("runs up to maxInFlight batches at once", async () => {
    const gate = gatedRun();
    const c = coalescer(gate.run, { maxInFlight: 2, maxBatch: 1 });
    const answers = [1, 2, 3].map((n) => c.submit(n));
    await turn();
    expect(gate.batches.map((b) => b.inputs)).toEqual([[1], [2]]);
    gate.batches[1]?.release();
    await turn();
    await turn();
    expect(gate.batches.map((b) => b.inputs)).toEqual([[1], [2], [3]]);
    gate.batches[0]?.release();
    gate.batches[2]?.release();
    expect(await Promise.all(answers)).toEqual([10, 20, 30]);
    expect(gate.maxRunning()).toBe(2);
  });

  it("fails every call of a failed batch, and only those", async () => {
    const gate = gatedRun();
    const c = coalescer(gate.run, { maxInFlight: 1, maxBatch: 10 });
    const doomed = [1, 2].map((n) => c.submit(n));
    await turn();
    const next = c.submit(3);
    gate.batches[0]?.fail(new Error("connection lost"));
    for (const d of doomed) await expect(d).rejects.toThrow("connection lost");
    await turn();
    gate.batches[1]?.release();
    expect(await next).toBe(30);
  });

  it("lets one outcome of a batch fail or come later without touching the others", async () => {
    let slowDone: (n: number) => void = () => {};
    const slow = new Promise<number>((resolve) => {
      slowDone = resolve;
    });
    const c = coalescer(
      async (inputs) =>
        inputs.map((n) => (n === 2 ? Promise.reject(new Error("row 2 refused")) : n === 3 ? slow : n * 10)),
      { maxInFlight: 1, maxBatch: 10 },
    );
    const [one, two, three] = [1, 2, 3].map((n) => c.submit(n));
    expect(await one).toBe(10);
    await expect(two).rejects.toThrow("row 2 refused");
    // The slow outcome holds the batch's slot: the next call waits for it.
    const four = c.submit(4);
    let fourDone = false;
    void four.then(() => {
      fourDone = true;
    });
    await turn();
    await turn();
    expect(fourDone).toBe(false);
    slowDone(33);
    expect(await three).toBe(33);
    expect(await four).toBe(40);
  });

  it("refuses an answer with the wrong number of outcomes", async () => {
    const c = coalescer(async () => [1], { maxInFlight: 1, maxBatch: 10 });
    const answers = [c.submit(1), c.submit(2)];
    for (const a of answers) await expect(a).rejects.toThrow("batch of 2 answered 1 outcomes");
  });

  it("gives up on a batch that never answers: its calls fail and the next batch goes", async () => {
    const gate = gatedRun();
    const c = coalescer(gate.run, { maxInFlight: 1, maxBatch: 10, timeoutMs: 50 });
    const stuck = c.submit(1);
    await turn();
    const next = c.submit(2);
    await expect(stuck).rejects.toThrow("a batch of 1 got no answer within 50 ms");
    await turn();
    expect(gate.batches.map((b) => b.inputs)).toEqual([[1], [2]]);
    gate.batches[1]?.release();
    expect(await next).toBe(20);
    // The stuck batch answering at last changes nothing.
    gate.batches[0]?.release();
    await expect(stuck).rejects.toThrow("no answer");
  });
});
