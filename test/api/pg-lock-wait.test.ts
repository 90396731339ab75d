import pg from "pg";
import { request } from "undici";
import { afterEach, describe, expect, it } from "vitest";
import { STORES, startTestServer, type TestServer } from "../support/harness.js";

/**
 * A statement waiting on a lock another session holds (a DBA's open transaction, another version's
 * migration) is bounded by PAYINTAKE_PG_STATEMENT_TIMEOUT_MS: it waited for ever, its request was
 * never answered and a stop waited with it. Migrations are not bound: an instance waiting for
 * another's must still start.
 */
const servers: TestServer[] = [];
const sessions: pg.Client[] = [];

afterEach(async () => {
  for (const s of sessions.splice(0)) await s.end().catch(() => {});
  for (const s of servers.splice(0).reverse()) await s.close();
});

async function session(url: string): Promise<pg.Client> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  sessions.push(c);
  return c;
}

describe.runIf(STORES.includes("postgres"))("PostgreSQL statements waiting on a lock", () => {
  it("fail after PAYINTAKE_PG_STATEMENT_TIMEOUT_MS with a 500 instead of hanging", async () => {
    const server = await startTestServer("postgres", {
      LOG_LEVEL: "fatal",
      PAYINTAKE_PG_STATEMENT_TIMEOUT_MS: "1000",
    });
    servers.push(server);
    expect((await server.admin("GET", "/admin/v1/transactions")).status).toBe(200);

    const dba = await session(server.env.DATABASE_URL as string);
    await dba.query("BEGIN");
    await dba.query("LOCK TABLE transactions IN ACCESS EXCLUSIVE MODE");
    const started = Date.now();
    const res = await request(`${server.url}/admin/v1/transactions`, {
      headers: { authorization: `Bearer ${server.adminToken}` },
      headersTimeout: 8_000,
    });
    expect(res.statusCode).toBe(500);
    expect(await res.body.json()).toEqual({
      success: false,
      code: "internal_error",
      message: expect.any(String),
    });
    expect(Date.now() - started).toBeLessThan(5_000);

    await dba.query("COMMIT");
    expect((await server.admin("GET", "/admin/v1/transactions")).status).toBe(200);
  }, 20_000);

  it("do not bound migrations: an instance that waits longer for another's migrations still starts", async () => {
    const first = await startTestServer("postgres", { LOG_LEVEL: "fatal" });
    servers.push(first);
    // Another instance migrating: it holds the migrations' lock (database-wide) for 2.5 s.
    const migrating = await session(first.env.DATABASE_URL as string);
    await migrating.query("SELECT pg_advisory_lock(727274)");
    const release = setTimeout(() => void migrating.query("SELECT pg_advisory_unlock(727274)"), 2_500);
    try {
      const second = await startTestServer(
        "postgres",
        { LOG_LEVEL: "fatal", PAYINTAKE_PG_STATEMENT_TIMEOUT_MS: "1000" },
        { shareStoreOf: first },
      );
      servers.push(second);
      expect((await second.admin("GET", "/admin/v1/transactions")).status).toBe(200);
    } finally {
      clearTimeout(release);
    }
  }, 20_000);
});
