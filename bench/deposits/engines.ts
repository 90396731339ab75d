/**
 * What the store's machinery buys (docs/adr/0012-store-engines-measured.md): the store floor and
 * signed deposits, each with the machinery on and off, in interleaved rounds. On SQLite the
 * machinery is the store's own thread with its group commit; on PostgreSQL, the batches the
 * deposits' two statements share. `npm run bench:engines`; BENCH_ROUNDS (3), BENCH_SECONDS (10),
 * BENCH_STORES as for the main benchmark. Writes the "engines" section of docs/BENCHMARKS.md.
 */

import { BENCHMARKS_DOC, writeDocSections } from "../shared/doc-sections.js";
import { ROOT } from "../shared/tree.js";
import { CONNECTIONS, interleave, mediansTable, ROUNDS, SECONDS, STORES } from "./interleaved.js";

const log = (line: string) => process.stdout.write(`[engines] ${line}\n`);
const MACHINERY = { sqlite: "the store's thread and group commit", postgres: "batched statements" };

const variant = (on: boolean) => {
  const flag = on ? "true" : "false";
  return {
    cwd: ROOT,
    floorEnv: { FLOOR_SQLITE_THREAD: flag, FLOOR_PG_BATCHES: flag },
    serverEnv: { PAYINTAKE_SQLITE_THREAD: flag, PAYINTAKE_PG_BATCHES: flag },
  };
};

const runs = await interleave({ with: variant(true), without: variant(false) }, log);
const body = [
  `Measured ${new Date().toISOString().slice(0, 10)}, ${ROUNDS} interleaved rounds of ${SECONDS} s at ${CONNECTIONS} connections; medians of the rounds.`,
  "",
  mediansTable(runs, ["with", "without"], (kind, v) => `${v} ${MACHINERY[kind]}`),
].join("\n");
process.stdout.write(`\n${body}\n`);
if (STORES.length === 2) writeDocSections(BENCHMARKS_DOC, [{ name: "engines", body }]);
