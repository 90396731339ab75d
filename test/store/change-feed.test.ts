import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ChangeTopic, channelFor, createPgChangeFeed } from "../../src/store/engine/change-feed.js";
import { freshPostgresSchema, STORES } from "../support/harness.js";

/**
 * Two deployments in one PostgreSQL database, one schema each (as the tests run): each hears its
 * own notices and not the other's. NOTIFY is database-wide, so on one channel they heard both.
 */
describe.runIf(STORES.includes("postgres"))("change feed on PostgreSQL: one channel per schema", () => {
  const schemas: Awaited<ReturnType<typeof freshPostgresSchema>>[] = [];
  const pools: pg.Pool[] = [];
  const feeds: ReturnType<typeof createPgChangeFeed>[] = [];
  const heard: (ChangeTopic | "all")[][] = [[], []];

  beforeAll(async () => {
    for (let i = 0; i < 2; i++) {
      const schema = await freshPostgresSchema();
      schemas.push(schema);
      const pool = new pg.Pool({ connectionString: schema.url, max: 2 });
      pools.push(pool);
      const feed = createPgChangeFeed(schema.url, pool);
      feed.onChange((topic) => heard[i]?.push(topic));
      feeds.push(feed);
    }
    // Both listening (each says "all" once its LISTEN is in place).
    const deadline = Date.now() + 5_000;
    while (!heard.every((h) => h.includes("all"))) {
      if (Date.now() > deadline) throw new Error("the feeds did not start listening");
      await new Promise((r) => setTimeout(r, 20));
    }
  });
  afterAll(async () => {
    for (const feed of feeds) await feed.close();
    for (const pool of pools) await pool.end();
    for (const schema of schemas) await schema.drop();
  });

  it("a notice reaches its own schema's instances only", async () => {
    await feeds[0]?.announce("queue");
    await feeds[1]?.announce("firms");
    await expect.poll(() => heard[0]?.includes("queue") && heard[1]?.includes("firms")).toBe(true);
    // Each heard its own: nor does the other's notice come later.
    await new Promise((r) => setTimeout(r, 300));
    expect(heard[0]).not.toContain("firms");
    expect(heard[1]).not.toContain("queue");
  });

  it("the public schema keeps the channel instances before the split used", () => {
    expect(channelFor("public")).toBe("payintake_changes");
    expect(channelFor("t_abc")).toMatch(/^payintake_changes_[0-9a-f]{16}$/);
    expect(channelFor("t_abc")).not.toBe(channelFor("t_abd"));
  });
});
