/**
 * Keeps the garbage of a long write loop within a budget. Writing a statement's lines a batch at a
 * time builds each batch's statement and parameters (Kysely's tree, a few thousand values) while
 * the batch is alive, so young collections promote most of it; V8 then lets the old generation
 * grow to about four times what is live before it collects it, which for a large file is over a
 * hundred megabytes of garbage on top of the server's own heap. The import asks for a collection
 * itself when the heap has grown by the budget since the last one, so the server's memory grows by
 * about the budget whatever the file's size (docs/reconciliation.md, "Memory").
 *
 * The collector is V8's `gc`, made reachable in a context of its own (the server's global object
 * does not get it). The collection runs as a task of its own, not inside the caller's loop.
 */
import { getHeapStatistics, setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

type Collector = (options: { type: "major"; execution: "async" }) => Promise<void> | undefined;

let collector: Collector | null | undefined;

function theCollector(): Collector | null {
  if (collector === undefined) {
    try {
      setFlagsFromString("--expose-gc");
      const found: unknown = runInNewContext("typeof gc === 'function' ? gc : null");
      collector = typeof found === "function" ? (found as Collector) : null;
    } catch {
      collector = null;
    }
  }
  return collector;
}

const used = () => getHeapStatistics().used_heap_size;

export interface HeapBudget {
  /**
   * Called between batches: asks for a collection once the heap has grown by the budget since the
   * last one, and says whether it asked.
   */
  check(): boolean;
  /** Collections asked for and finished. */
  readonly collections: number;
}

export function heapBudget(budgetBytes: number): HeapBudget {
  const collect = theCollector();
  let base = used();
  let collecting = false;
  let collections = 0;
  return {
    check() {
      if (!collect || collecting || used() - base < budgetBytes) return false;
      collecting = true;
      const done = () => {
        collecting = false;
        collections++;
        base = used();
      };
      const running = collect({ type: "major", execution: "async" });
      if (running) running.then(done, done);
      else done();
      return true;
    },
    get collections() {
      return collections;
    },
  };
}
