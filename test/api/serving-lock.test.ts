import pg from "pg";
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { STORES, startTestServer, type TestServer } from "../support/harness.js";
import { addAccount, createFirm, depositBody, send, type TestFirm } from "../support/merchant.js";
import { eventually } from "../support/receiver.js";

/**
 * An instance on PostgreSQL whose serving lock is lost (its connection broke) seals nothing until it
 * has the lock again: a master key rotation may hold the lock meanwhile, and a secret this instance
 * sealed then, under the old key, would be left under it for good (found by review: it served and
 * sealed for the whole rotation). Played here by taking the lock exclusively, as a rotation does.
 */
const LOCK = "727275, ('x' || substr(md5(coalesce(current_schema(), '')), 1, 8))::bit(32)::int";

describe.runIf(STORES.includes("postgres"))("an instance that lost its serving lock", () => {
  let server: TestServer;
  let firm: TestFirm;
  let db: pg.Client;

  beforeAll(async () => {
    server = await startTestServer("postgres", { LOG_LEVEL: "silent" });
    await addAccount(server);
    firm = await createFirm(server);
    db = new pg.Client({ connectionString: server.env.DATABASE_URL });
    await db.connect();
  });
  afterAll(async () => {
    await db?.end();
    await server?.close();
  });

  const deposit = (body: Record<string, unknown>) =>
    send(server, firm, { path: "/paymentapi/v1/deposits", body });
  const byReference = (reference: unknown) =>
    send(server, firm, { path: `/paymentapi/v1/transactions/by-reference/${reference}` });

  it("refuses what would seal a secret while another holds the lock, and seals again once it has it back", async () => {
    // This store's serving lock, held by the server's own connection: cut it, then take the lock
    // before the server takes it back (it tries again after 300 ms). pg_locks shows every database's
    // locks, and other test files' stores have the same schema name: only this database's is cut.
    const cut = await db.query(
      `SELECT pg_terminate_backend(pid) AS cut FROM pg_locks
        WHERE locktype = 'advisory' AND classid = 727275 AND mode = 'ShareLock'
          AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
          AND objid::bigint = (('x' || substr(md5(current_schema()), 1, 8))::bit(32)::int::bigint + 4294967296) % 4294967296`,
    );
    expect(cut.rows).toEqual([{ cut: true }]);
    await eventually(async () => {
      const taken = await db.query(`SELECT pg_try_advisory_lock(${LOCK}) AS taken`);
      return taken.rows[0].taken === true ? true : undefined;
    });

    try {
      // A national id is sealed: refused before anything is written.
      const sealed = depositBody();
      const refused = await deposit(sealed);
      expect(refused.status).toBe(500);
      expect(refused.json).toEqual({
        success: false,
        message: "An internal error occurred. Please try again later.",
      });
      expect((await byReference(sealed.reference)).status).toBe(404);
      // A firm's secret key too.
      expect((await server.admin("POST", "/admin/v1/firms", { name: "Paused" })).status).toBe(500);
      // Everything that seals nothing goes on; a load balancer asking /readyz is told to send less.
      const plain = depositBody({ national_id: undefined });
      expect((await deposit(plain)).status).toBe(200);
      expect((await byReference(plain.reference)).status).toBe(200);
      const ready = await request(`${server.url}/readyz`);
      expect(ready.statusCode).toBe(503);
      expect(await ready.body.json()).toEqual({ status: "serving lock lost" });
    } finally {
      await db.query(`SELECT pg_advisory_unlock(${LOCK})`);
    }

    // The lock is free again: the server takes it, finds its key still the store's, and seals.
    await eventually(async () => ((await deposit(depositBody())).status === 200 ? true : undefined));
    expect((await server.admin("POST", "/admin/v1/firms", { name: "Resumed" })).status).toBe(201);
    expect((await request(`${server.url}/readyz`)).statusCode).toBe(200);
  });
});
