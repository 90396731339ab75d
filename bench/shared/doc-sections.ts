import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { ROOT } from "./tree.js";

/**
 * docs/BENCHMARKS.md, where each benchmark writes its sections between markers. BENCH_DOC names
 * another file to write instead (a copy, for a trial run whose figures should not land in the doc).
 */
export const BENCHMARKS_DOC = process.env.BENCH_DOC
  ? resolve(process.env.BENCH_DOC)
  : join(ROOT, "docs", "BENCHMARKS.md");

export const DOC_INTRO = `# Benchmarks

Throughput and latency of payintake measured on one machine, next to a reference that shows what the
machine can do at all. Figures only compare well within one run on one machine: the reference is
measured in the same run for that reason, and targets are expressed as ratios to it. The deposits are
measured in rounds (bare, SQLite, PostgreSQL, then again): this machine's speed drifts by a third
within minutes, so each ratio is taken against the bare endpoint of its own round, and the targets
are held to the median of the rounds' ratios and to the worst round's p99.

## How to run

\`\`\`sh
npm run bench                             # builds (prebench), then bench/deposits/run.ts; about 12 minutes
BENCH_CALLBACKS=0 npm run bench           # deposits only (3 rounds): about 5 minutes
BENCH_ROUNDS=5 npm run bench              # more rounds of bare, SQLite and PostgreSQL (default 3)
BENCH_SECONDS=30 npm run bench            # longer measured runs (default 10 s, after 2 s warmup)
BENCH_QUIET_WAIT_SECONDS=0 npm run bench  # do not wait for an idle machine before each server (default: up to 15 s)
BENCH_STORES=sqlite npm run bench         # one store only (figures not written here)
BENCH_CPU_PROF=1 npm run bench            # also CPU-profiles payintake and prints where it spends time (figures not written here)
\`\`\`

PostgreSQL comes from \`BENCH_DATABASE_URL\` (else \`PAYINTAKE_TEST_DATABASE_URL\`, else
\`postgres://postgres@127.0.0.1:5432/test\`); each run works in a fresh schema and drops it afterwards.
The benchmark exits 0 when targets are missed (it measures, it does not gate) and marks them MISSED.

## Layout of this file

Each section below is written by a benchmark script between \`<!-- bench:<name>:start -->\` and
\`<!-- bench:<name>:end -->\` markers. A run replaces only its own sections; text outside the markers
is kept. New benchmarks add their own sections with their own markers.
`;

/** Replaces the text between the section's markers, or appends the section when it is not there yet. */
export function upsertSection(doc: string, name: string, body: string): string {
  const start = `<!-- bench:${name}:start -->`;
  const end = `<!-- bench:${name}:end -->`;
  const block = `${start}\n${body.trim()}\n${end}`;
  const i = doc.indexOf(start);
  const j = doc.indexOf(end);
  if (i !== -1 && j > i) return doc.slice(0, i) + block + doc.slice(j + end.length);
  return `${doc.trimEnd()}\n\n${block}\n`;
}

export function writeDocSections(file: string, sections: { name: string; body: string }[]): void {
  let doc = existsSync(file) ? readFileSync(file, "utf8") : DOC_INTRO;
  for (const s of sections) doc = upsertSection(doc, s.name, s.body);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, doc.endsWith("\n") ? doc : `${doc}\n`);
}
