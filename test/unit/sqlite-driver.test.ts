import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { SQLITE_DRIVER, sqliteDatabase, sqliteDriverVersion } from "../../src/store/engine/sqlite-driver.js";

/**
 * The embedded store's native driver on the runtime that runs this suite (CI runs it on Node 20 and
 * on Node 24): it loads, works, and survives the garbage collection of dropped statements, which
 * aborted the whole process on Node 24 with better-sqlite3 12.
 */
describe("the embedded store's driver", () => {
  it("is the build this runtime's Node-API calls for, and runs SQL", () => {
    const napi = Number(process.versions.napi);
    expect(SQLITE_DRIVER).toBe(napi >= 10 ? "better-sqlite3-napi" : "better-sqlite3");
    expect(sqliteDriverVersion()).toMatch(napi >= 10 ? /^13\./ : /^12\./);
    const Database = sqliteDatabase();
    const db = new Database(":memory:");
    expect(db.prepare("SELECT 40 + 2 AS n").get()).toEqual({ n: 42 });
    db.close();
  });

  it("lets the collector finalize thousands of dropped statements without taking the process down", () => {
    const run = spawnSync(process.execPath, ["--import", "tsx", "test/support/statement-churn.ts"], {
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(run.stderr).not.toMatch(/Assertion failed/);
    expect(run.signal).toBeNull();
    expect(run.status).toBe(0);
    expect(run.stdout).toBe(`survived ${process.version}\n`);
  });
});
