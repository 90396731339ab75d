import { existsSync, statfsSync, statSync } from "node:fs";
import { join } from "node:path";
import { sql } from "kysely";
import type { Store } from "../../src/store/engine/open.js";

/**
 * Room on disk before each growth step, and the store's size after it. Ten million transactions
 * with their callbacks and audit entries take tens of gigabytes: a step that would fill the disk is
 * refused before it starts, not found out half way.
 */

/** Bytes a transaction takes with its callback, audit entry and indexes, until a step has measured it. */
const FIRST_GUESS = { sqlite: 2_500, postgres: 3_500 } as const;
/** Room kept besides the estimate: journals, PostgreSQL's WAL, VACUUM's work. */
const SLACK_BYTES = 2 * 1024 ** 3;

export function storeFile(dataDir: string): string {
  return join(dataDir, "payintake.db");
}

/** The store's size: the SQLite file and its journal, or PostgreSQL's tables with their indexes and TOAST. */
export async function storeBytes(store: Store, dataDir: string): Promise<number> {
  if (store.dialect === "sqlite") {
    const file = storeFile(dataDir);
    return [file, `${file}-wal`, `${file}-shm`]
      .filter((f) => existsSync(f))
      .reduce((sum, f) => sum + statSync(f).size, 0);
  }
  const { rows } = await sql<{ bytes: string | number | null }>`
    SELECT sum(pg_total_relation_size(c.oid)) AS bytes
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = current_schema() AND c.relkind = 'r'`.execute(store.db);
  return Number(rows[0]?.bytes ?? 0);
}

/** Where the store's bytes land: the data directory, or PostgreSQL's (undefined when it cannot be told). */
export async function storeDirectory(store: Store, dataDir: string): Promise<string | undefined> {
  if (store.dialect === "sqlite") return dataDir;
  try {
    const { rows } = await sql<{ data_directory: string }>`SHOW data_directory`.execute(store.db);
    const dir = rows[0]?.data_directory;
    return dir && existsSync(dir) ? dir : undefined;
  } catch {
    return undefined;
  }
}

export function freeBytes(dir: string): number {
  const fs = statfsSync(dir);
  return fs.bavail * fs.bsize;
}

/** Bytes per transaction measured over a step (the growth of the store ÷ the rows added). */
export function bytesPerTransaction(kind: Store["dialect"], grownBytes: number, rows: number): number {
  return rows > 0 && grownBytes > 0 ? grownBytes / rows : FIRST_GUESS[kind];
}

/**
 * Throws, saying how much is needed and free, when adding `rows` transactions would not fit.
 * `dir` undefined (a PostgreSQL elsewhere): nothing can be checked, and the caller says so.
 */
export function ensureRoom(dir: string, rows: number, perTransaction: number): void {
  const need = rows * perTransaction * 1.25 + SLACK_BYTES;
  const free = freeBytes(dir);
  if (need > free)
    throw new Error(
      `not enough disk for ${rows.toLocaleString("en-US")} more transactions: about ${gb(need)} needed ` +
        `(${Math.round(perTransaction).toLocaleString("en-US")} bytes each, measured or guessed, plus room for ` +
        `journals), ${gb(free)} free under ${dir}. Free some space or lower VOLUME_SIZES.`,
    );
}

export const gb = (bytes: number) => `${(bytes / 1024 ** 3).toFixed(1)} GB`;
export function mb(bytes: number): string {
  if (!Number.isFinite(bytes)) return "n/a";
  const n = bytes / 1024 ** 2;
  return `${n < 10 ? n.toFixed(1) : Math.round(n).toLocaleString("en-US")} MB`;
}
