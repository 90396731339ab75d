import { sqliteDatabase } from "../../src/store/engine/sqlite-driver.js";

/**
 * Run as its own process by test/unit/sqlite-driver.test.ts: prepares and drops statements until
 * the garbage collector finalizes some between two tasks, then says it survived. A build of
 * better-sqlite3 that the runtime aborts on that (12 on Node 24.19 and later) never says so.
 */
const Database = sqliteDatabase();
const db = new Database(":memory:");
for (let i = 0; i < 50_000; i++) db.prepare(`SELECT ${i} AS x`).get();
setTimeout(() => {
  db.close();
  process.stdout.write(`survived ${process.version}\n`);
}, 1000);
