import type { KyselyPlugin } from "kysely";

/**
 * Stops a caller at a chosen point until the test lets it go: `stop()` is awaited by the caller,
 * `reached` resolves once it is waiting, `go()` lets it on. For interleavings that timing alone
 * would make rare (another instance's write between two statements, say).
 */
export function pausePoint() {
  let go = () => {};
  const released = new Promise<void>((r) => {
    go = r;
  });
  let arrive = () => {};
  const reached = new Promise<void>((r) => {
    arrive = r;
  });
  return {
    reached,
    go,
    stop(): Promise<void> {
      arrive();
      return released;
    },
  };
}

/**
 * A Kysely plugin that stops its connection's caller after a statement, once: the `n`th it sees, or
 * the first after `when()` turns true.
 */
export function pauseAfterStatement(opts: { n?: number; when?: () => boolean }) {
  const point = pausePoint();
  let seen = 0;
  let done = false;
  const plugin: KyselyPlugin = {
    transformQuery: (args) => args.node,
    async transformResult(args) {
      seen++;
      const due = opts.when ? opts.when() : seen === opts.n;
      if (!done && due) {
        done = true;
        await point.stop();
      }
      return args.result;
    },
  };
  return { plugin, reached: point.reached, go: point.go };
}
