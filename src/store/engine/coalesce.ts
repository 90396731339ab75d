/**
 * Coalesces concurrent calls of one kind into batches, each run as one database round trip.
 *
 * On PostgreSQL most of a deposit's cost is per statement, not per row: the parse, bind, execute
 * and commit of each round trip, on the server and in the `pg` driver. Under load many requests
 * want the same statement at the same moment, so they share one: a call waits for the next turn of
 * the event loop, or, when `maxInFlight` batches are already running, until one of them is done
 * (slower paths of its own included, `timeoutMs` at most); everything that queued meanwhile goes in
 * the next batch, `maxBatch` at a time. An idle server sends a batch of one at once: nothing waits
 * on a timer.
 *
 * `run` answers one outcome per input, in order; an outcome may itself be a promise, so one input
 * can fail or take a slower path without holding back the others' answers.
 */
interface Waiting<I, O> {
  input: I;
  resolve: (out: O | PromiseLike<O>) => void;
  reject: (err: unknown) => void;
}

/** A batch given up on after its time: its statement may still run, and commit, in the database. */
export class NoAnswerError extends Error {}

export class Coalescer<I, O> {
  readonly #queue: Waiting<I, O>[] = [];
  #inFlight = 0;
  #scheduled = false;

  constructor(
    private readonly run: (inputs: readonly I[]) => Promise<readonly (O | PromiseLike<O>)[]>,
    private readonly limits: {
      maxInFlight: number;
      maxBatch: number;
      /**
       * A batch still unanswered after this long frees its slot and fails its calls, so one stuck
       * statement (a lock, a half-open connection) cannot hold up every later call. Its outcome is
       * then unknown, like a lost connection's.
       */
      timeoutMs: number;
    },
  ) {}

  submit(input: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.#queue.push({ input, resolve, reject });
      this.#schedule();
    });
  }

  #schedule(): void {
    if (this.#scheduled || this.#queue.length === 0 || this.#inFlight >= this.limits.maxInFlight) return;
    this.#scheduled = true;
    // The rest of this loop turn's requests join the batch: they were read from their sockets in
    // the same poll phase and reach this point before the check phase runs.
    setImmediate(() => {
      this.#scheduled = false;
      this.#flush();
    });
  }

  #flush(): void {
    while (this.#queue.length > 0 && this.#inFlight < this.limits.maxInFlight) {
      const batch = this.#queue.splice(0, this.limits.maxBatch);
      this.#inFlight += 1;
      this.#runBatch(batch).finally(() => {
        this.#inFlight -= 1;
        this.#schedule();
      });
    }
  }

  async #runBatch(batch: Waiting<I, O>[]): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<"late">((resolve) => {
      timer = setTimeout(() => resolve("late"), this.limits.timeoutMs);
    });
    const first = await Promise.race([this.#answer(batch), late]);
    clearTimeout(timer);
    if (first === "late") {
      // Calls already answered keep their answer (a settled promise ignores a later reject); a call
      // handed a slower path of its own (an outcome that is a promise) goes on waiting for it alone.
      const err = new NoAnswerError(
        `a batch of ${batch.length} got no answer within ${this.limits.timeoutMs} ms`,
      );
      for (const b of batch) b.reject(err);
    }
  }

  /** Runs the batch and settles its calls; never rejects. */
  async #answer(batch: Waiting<I, O>[]): Promise<"done"> {
    try {
      const outcomes = await this.run(batch.map((b) => b.input));
      if (outcomes.length !== batch.length) {
        for (const o of outcomes) Promise.resolve(o).catch(() => {});
        throw new Error(`batch of ${batch.length} answered ${outcomes.length} outcomes`);
      }
      batch.forEach((b, i) => {
        b.resolve(outcomes[i] as O | PromiseLike<O>);
      });
      // The batch's slot is held until every outcome is known, slower paths included.
      await Promise.allSettled(outcomes);
    } catch (err) {
      for (const b of batch) b.reject(err);
    }
    return "done";
  }
}
