/**
 * The volume section from two runs' raw figures (.bench-tmp/volume-*.json): the SQLite run of the
 * first file and the PostgreSQL run of the second, when one store was measured again alone after a
 * change that concerned it only (a 10 million run takes an hour per store). The section names each
 * run's code and date.
 *
 *   node --import tsx bench/volume/merge.ts .bench-tmp/volume-A.json .bench-tmp/volume-B.json
 */

import { readFileSync } from "node:fs";
import { BENCHMARKS_DOC, writeDocSections } from "../shared/doc-sections.js";
import type { VolumeConfig } from "./config.js";
import type { StoreRun } from "./report.js";
import { volumeSection } from "./section.js";

interface Raw {
  date: string;
  version: string;
  config: VolumeConfig;
  runs: StoreRun[];
}
const [sqliteFile, postgresFile] = process.argv.slice(2);
if (!sqliteFile || !postgresFile)
  throw new Error("usage: bench/volume/merge.ts <sqlite run.json> <postgres run.json>");
const read = (file: string) => JSON.parse(readFileSync(file, "utf8")) as Raw;
const a = read(sqliteFile);
const b = read(postgresFile);
const sqlite = a.runs.find((r) => r.kind === "sqlite");
const postgres = b.runs.find((r) => r.kind === "postgres");
if (!sqlite || !postgres) throw new Error("the first file needs a SQLite run, the second a PostgreSQL one");
if (a.config.sizes.join() !== b.config.sizes.join()) throw new Error("the two runs measured other sizes");
const section = volumeSection(
  [sqlite, postgres],
  a.config,
  `${a.date} (SQLite) and ${b.date} (PostgreSQL)`,
  `${a.version} (SQLite) and ${b.version} (PostgreSQL)`,
);
writeDocSections(BENCHMARKS_DOC, [{ name: "volume", body: section }]);
process.stdout.write(`${section}\n`);
