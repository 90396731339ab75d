import { createRequire } from "node:module";
import type BetterSqlite3 from "better-sqlite3";

/**
 * The build of better-sqlite3 this runtime can live with. Two majors are installed, and one is
 * loaded (docs/adr/0011-node-24-beside-node-20.md):
 * - 13 (`better-sqlite3-napi`, an npm alias) is built on Node-API. It is taken wherever the runtime
 *   has Node-API 10 (Node 22.14 and later, so every Node 24). 12 there would abort the process: its
 *   statements derive from node::ObjectWrap, whose destructor on Node 24.19 and later asserts a
 *   JavaScript environment that a garbage collection between two tasks does not have, so the first
 *   dropped prepared statement (the thread's statement cache evicts, Kysely prepares per query)
 *   kills the server (nodejs/node#65446).
 * - 12 is taken on Node 20, which has Node-API 9: 13 crashes there at `new Database()`, and 12's
 *   ObjectWrap has no such hook on 20. It is an optional dependency: npm tries its build everywhere,
 *   and an install whose build fails goes on (on Node 24 nothing loads it).
 * Both have the same API, typed by `@types/better-sqlite3`.
 */
export const SQLITE_DRIVER: "better-sqlite3-napi" | "better-sqlite3" =
  Number(process.versions.napi) >= 10 ? "better-sqlite3-napi" : "better-sqlite3";

const load = createRequire(import.meta.url);

/**
 * 12 is an optional dependency, so that an install on Node 24 goes on when its native build fails;
 * on Node 20 that build is required, and its absence is said in words here. Loaded when the
 * embedded store first opens, not when this module is imported: a PostgreSQL deployment needs no
 * SQLite build at all.
 */
function loadDriver(): typeof BetterSqlite3 {
  try {
    return load(SQLITE_DRIVER);
  } catch (err) {
    if (SQLITE_DRIVER === "better-sqlite3-napi") throw err;
    throw new Error(
      `better-sqlite3 12 could not be loaded on Node.js ${process.version} (${(err as Error).message}). ` +
        "On Node 20 the embedded store needs its native build: run npm install with a C++ toolchain, " +
        "Python and this Node.js's headers (README, Node.js versions), or run on Node 24, which needs no build.",
      { cause: err },
    );
  }
}

let loaded: typeof BetterSqlite3 | undefined;

/** The driver's Database class, loaded on first use. */
export function sqliteDatabase(): typeof BetterSqlite3 {
  loaded ??= loadDriver();
  return loaded;
}

/** The build's package version, for CI's check of the native build. */
export function sqliteDriverVersion(): string {
  return (load(`${SQLITE_DRIVER}/package.json`) as { version: string }).version;
}

export type { Database as SqliteDatabase, Statement } from "better-sqlite3";
