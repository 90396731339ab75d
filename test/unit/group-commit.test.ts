import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Generated, Kysely } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import { prepared } from "../../src/store/engine/prepared.js";
import { sqliteDatabase } from "../../src/store/engine/sqlite-driver.js";
import { openGroupCommit } from "../../src/store/engine/sqlite-group-commit.js";

/**
 * The embedded store's group commit, seen from a second connection to the same file: writes stay
 * invisible (uncommitted) until the batch commits, and settle() resolves only after that commit.
 * This is what lets the HTTP layer answer only once a write is durable.
 */
interface T {
  items: { id: Generated<number>; name: string };
}

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function open() {
  const dir = mkdtempSync(join(tmpdir(), "payintake-gc-"));
  dirs.push(dir);
  const file = join(dir, "db.sqlite");
  const raw = new (sqliteDatabase())(file);
  raw.pragma("journal_mode = WAL");
  raw.exec("CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE)");
  raw.close();
  const { dialect, groupCommit } = await openGroupCommit({
    file,
    exclusive: false,
    onCommitFailure(err) {
      throw err;
    },
  });
  const db = new Kysely<T>({ dialect });
  const observer = new (sqliteDatabase())(file, { readonly: true });
  const visible = () => (observer.prepare("SELECT count(*) AS n FROM items").get() as { n: number }).n;
  const visibleNames = () =>
    (observer.prepare("SELECT name FROM items").all() as { name: string }[]).map((r) => r.name);
  return {
    db,
    groupCommit,
    visible,
    visibleNames,
    close: async () => {
      observer.close();
      await db.destroy();
      await groupCommit.close();
    },
  };
}

describe("group commit", () => {
  it("keeps writes uncommitted until the batch commits, and settle() resolves after the commit", async () => {
    const s = await open();
    // The store's thread never commits while a unit is open: what the unit wrote is not yet visible.
    await s.db.transaction().execute(async (trx) => {
      await trx.insertInto("items").values({ name: "a" }).execute();
      await trx.insertInto("items").values({ name: "b" }).execute();
      expect(s.visible()).toBe(0);
    });
    await s.groupCommit.settle();
    expect(s.visible()).toBe(2);
    await s.close();
  });

  it("lets each of many concurrent writers see its row durable once its settle() resolves", async () => {
    const s = await open();
    const seen = await Promise.all(
      Array.from({ length: 50 }, async (_, i) => {
        await s.db
          .insertInto("items")
          .values({ name: `n${i}` })
          .execute();
        await s.groupCommit.settle();
        return s.visibleNames().includes(`n${i}`);
      }),
    );
    expect(seen.every(Boolean)).toBe(true);
    expect(s.visible()).toBe(50);
    await s.close();
  });

  it("makes each of many queued units durable once its settle() resolves (units waiting share commits)", async () => {
    const s = await open();
    const seen = await Promise.all(
      Array.from({ length: 30 }, async (_, i) => {
        await s.db.transaction().execute(async (trx) => {
          await trx
            .insertInto("items")
            .values({ name: `u${i}-a` })
            .execute();
          await trx
            .insertInto("items")
            .values({ name: `u${i}-b` })
            .execute();
        });
        await s.groupCommit.settle();
        const names = s.visibleNames();
        return names.includes(`u${i}-a`) && names.includes(`u${i}-b`);
      }),
    );
    expect(seen.every(Boolean)).toBe(true);
    expect(s.visible()).toBe(60);
    await s.close();
  });

  it("rolls back only the failing statement, and a failed unit entirely, keeping the rest of the batch", async () => {
    const s = await open();
    await s.db.insertInto("items").values({ name: "kept" }).execute();
    // The error crosses from the store's thread with SQLite's code, which store/engine/errors.ts reads.
    await expect(s.db.insertInto("items").values({ name: "kept" }).execute()).rejects.toMatchObject({
      code: "SQLITE_CONSTRAINT_UNIQUE",
      message: expect.stringMatching(/UNIQUE constraint failed: items\.name/),
    });
    await expect(
      s.db.transaction().execute(async (trx) => {
        await trx.insertInto("items").values({ name: "unit-1" }).execute();
        await trx.insertInto("items").values({ name: "kept" }).execute();
      }),
    ).rejects.toThrow(/UNIQUE/);
    await s.db.insertInto("items").values({ name: "after" }).execute();
    await s.groupCommit.settle();
    const names = (await s.db.selectFrom("items").select("name").orderBy("id").execute()).map((r) => r.name);
    expect(names).toEqual(["kept", "after"]);
    expect(s.visible()).toBe(2);
    await s.close();
  });

  it("fails only the caller whose value cannot cross to the store's thread; the store goes on", async () => {
    const s = await open();
    const other = s.db.insertInto("items").values({ name: "fine" }).execute();
    await expect(
      s.db
        .insertInto("items")
        .values({ name: Symbol("not cloneable") as unknown as string })
        .execute(),
    ).rejects.toThrow();
    // Asked in the same turn (the same message) as the refused one, and still written.
    await other;
    await s.db.insertInto("items").values({ name: "after" }).execute();
    await s.groupCommit.settle();
    expect(s.visibleNames().sort()).toEqual(["after", "fine"]);
    await s.close();
  });

  it("refuses work asked after close instead of leaving it unanswered", async () => {
    const s = await open();
    await s.db.insertInto("items").values({ name: "before" }).execute();
    await s.close();
    await expect(s.groupCommit.settle()).resolves.toBeUndefined();
    await expect(
      s.groupCommit.statements.rows(prepared("items_all", "SELECT name FROM items"), []),
    ).rejects.toThrow(/closed/);
  });

  it("resolves settle() at once when nothing is pending", async () => {
    const s = await open();
    let done = false;
    void s.groupCommit.settle().then(() => {
      done = true;
    });
    await Promise.resolve();
    expect(done).toBe(true);
    await s.close();
  });
});
