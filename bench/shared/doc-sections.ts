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

/** The head of a new docs/BENCHMARKS.md, when a run finds none. */
export const DOC_INTRO = `# Benchmarks

Throughput, latency and memory of payintake, measured on one machine through the real server: each
section holds one measure's latest run, then its reading (what the figures say, what was tried to move
them). Older runs are in git's history of this file. Figures compare well only within one run: this
machine's speed drifts by a third within minutes and by a factor of ten from day to day (the bare endpoint
measured 4,800 to 49,000 requests a second on the same code). So deposits are measured in rounds beside two
references, a bare Fastify endpoint and the store floor, each ratio within its round, and the targets are
held to the median of the rounds' ratios and to the worst round's p99.

## How to run

[bench/README.md](../bench/README.md) lists every script, what it measures, its settings and the section
it writes: \`npm run bench\` (deposits, callbacks, routing, mixed workload: about 20 minutes;
\`BENCH_CALLBACKS=0\` for the deposits alone), \`npm run bench:volume\`, \`npm run bench:reconcile\` and others.
A run replaces only its sections, between their \`bench:<name>:start\` and \`:end\` markers; the readings
outside them are kept by hand. A run on one store only, or with the CPU profiler on, writes nothing here.
`;

/**
 * Replaces the text between the section's markers. A section not there yet goes in just before the
 * start marker of the section named `before`, when the doc has it, else at the end.
 */
export function upsertSection(doc: string, name: string, body: string, before?: string): string {
  const start = `<!-- bench:${name}:start -->`;
  const end = `<!-- bench:${name}:end -->`;
  const block = `${start}\n${body.trim()}\n${end}`;
  const i = doc.indexOf(start);
  const j = doc.indexOf(end);
  if (i !== -1 && j > i) return doc.slice(0, i) + block + doc.slice(j + end.length);
  const next = before === undefined ? -1 : doc.indexOf(`<!-- bench:${before}:start -->`);
  if (next !== -1) return `${doc.slice(0, next)}${block}\n\n${doc.slice(next)}`;
  return `${doc.trimEnd()}\n\n${block}\n`;
}

export function writeDocSections(
  file: string,
  sections: { name: string; body: string; before?: string }[],
): void {
  let doc = existsSync(file) ? readFileSync(file, "utf8") : DOC_INTRO;
  for (const s of sections) doc = upsertSection(doc, s.name, s.body, s.before);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, doc.endsWith("\n") ? doc : `${doc}\n`);
}
