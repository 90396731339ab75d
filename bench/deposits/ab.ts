/**
 * This tree against another checkout of payintake (BENCH_AB_BASE, built there with `npm run build`):
 * the store floor and signed deposits of each, in interleaved rounds, so a change is shown to cost
 * nothing, or what it costs. `npm run bench:ab`; BENCH_ROUNDS (3), BENCH_SECONDS (10), BENCH_STORES
 * as for the main benchmark. Writes the "ab" section of docs/BENCHMARKS.md.
 */

import { resolve } from "node:path";
import { BENCHMARKS_DOC, writeDocSections } from "../shared/doc-sections.js";
import { ROOT, shortCommit } from "../shared/tree.js";
import { CONNECTIONS, interleave, mediansTable, ROUNDS, SECONDS, STORES } from "./interleaved.js";

const BASE = process.env.BENCH_AB_BASE;
if (!BASE) throw new Error("BENCH_AB_BASE: the checkout to compare with (built with npm run build)");
const log = (line: string) => process.stdout.write(`[ab] ${line}\n`);
const names = { base: `before (${shortCommit(BASE)})`, here: `this tree (${shortCommit(ROOT)})` };

const runs = await interleave(
  {
    [names.base]: { cwd: resolve(BASE), floorEnv: {}, serverEnv: {} },
    [names.here]: { cwd: ROOT, floorEnv: {}, serverEnv: {} },
  },
  log,
);
const body = [
  `Measured ${new Date().toISOString().slice(0, 10)}, ${ROUNDS} interleaved rounds of ${SECONDS} s at ${CONNECTIONS} connections; medians of the rounds.`,
  "",
  mediansTable(runs, [names.base, names.here], (_kind, v) => v),
].join("\n");
process.stdout.write(`\n${body}\n`);
if (STORES.length === 2) writeDocSections(BENCHMARKS_DOC, [{ name: "ab", body }]);
