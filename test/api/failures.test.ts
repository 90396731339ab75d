import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { STORES, startTestServer, type TestServer } from "../support/harness.js";
import {
  addAccount,
  createFirm,
  depositBody,
  send,
  type TestFirm,
  withdrawalBody,
} from "../support/merchant.js";

/**
 * Broken infrastructure must surface as the contract's 500 in the envelope, with the cause logged
 * and nothing secret in the log. PostgreSQL lets the test break a table under a running server.
 */
describe.runIf(STORES.includes("postgres"))("unexpected failures on postgres", () => {
  let server: TestServer;
  let firm: TestFirm;

  beforeAll(async () => {
    server = await startTestServer("postgres");
    firm = await createFirm(server);
    await addAccount(server);
  });
  afterAll(() => server?.close());

  it("answers 500 in the envelope, logs the cause with the request id, and leaks no secret into the log", async () => {
    const body = depositBody({ national_id: "98765432109", iban: "TR330006100519786457841326" });
    expect((await send(server, firm, { path: "/paymentapi/v1/deposits", body: depositBody() })).status).toBe(
      200,
    );
    const client = new pg.Client({ connectionString: server.env.DATABASE_URL });
    await client.connect();
    await client.query("ALTER TABLE banned_users RENAME TO banned_users_gone");
    let requestId: unknown;
    try {
      const res = await send(server, firm, { path: "/paymentapi/v1/deposits", body });
      expect(res.status).toBe(500);
      requestId = res.headers["x-request-id"];
      expect(res.text).toBe(
        '{"success":false,"message":"An internal error occurred. Please try again later."}',
      );
      const w = await send(server, firm, {
        path: "/paymentapi/v1/withdrawals",
        body: withdrawalBody({ national_id: "98765432109" }),
      });
      expect(w.status).toBe(500);
    } finally {
      await client.query("ALTER TABLE banned_users_gone RENAME TO banned_users");
      await client.end();
    }
    const log = server.logs.join("");
    expect(log).toContain("banned_users");
    // The line that explains a 500 carries the id the client was given, to find it by.
    expect(typeof requestId).toBe("string");
    expect(
      server.logs.some((l) => l.includes(`"reqId":"${requestId}"`) && l.includes("unhandled error")),
    ).toBe(true);
    for (const secret of [firm.secret, "98765432109", "TR330006100519786457841326", server.adminToken]) {
      expect(log).not.toContain(secret);
    }
    // Nothing half-written: the failed deposit left no transaction behind.
    const after = await send(server, firm, {
      path: `/paymentapi/v1/transactions/by-reference/${body.reference}`,
    });
    expect(after.status).toBe(404);
  });

  it("a constraint the row fails is logged with its SQLSTATE and names, never the row's values (PostgreSQL's detail quoted the whole row)", async () => {
    const client = new pg.Client({ connectionString: server.env.DATABASE_URL });
    await client.connect();
    // NOT VALID: the rows already written stay; every new one fails, as a real schema mismatch would.
    await client.query(
      "ALTER TABLE transactions ADD CONSTRAINT test_refuses_all CHECK (amount < 0) NOT VALID",
    );
    const first = "Zübeyde";
    const withdrawal = withdrawalBody({ first_name: first, iban: "TR330006100519786457841326" });
    const deposit = depositBody({ first_name: first });
    const mark = server.logs.length;
    try {
      for (const [path, body] of [
        ["/paymentapi/v1/withdrawals", withdrawal],
        ["/paymentapi/v1/deposits", deposit],
      ] as const) {
        expect((await send(server, firm, { path, body })).status, path).toBe(500);
      }
    } finally {
      await client.query("ALTER TABLE transactions DROP CONSTRAINT test_refuses_all");
      await client.end();
    }
    const lines = server.logs.slice(mark).filter((l) => l.includes("unhandled error"));
    expect(lines).toHaveLength(2);
    for (const line of lines) {
      const { err } = JSON.parse(line);
      expect(err).toMatchObject({
        code: "23514",
        constraint: "test_refuses_all",
        table: "transactions",
        message: expect.stringContaining("test_refuses_all"),
      });
      expect(err.stack).toContain("test_refuses_all");
      expect(err.detail).toBeUndefined();
    }
    const log = server.logs.slice(mark).join("");
    expect(log).not.toContain("Failing row");
    for (const value of [
      first,
      withdrawal.reference as string,
      deposit.reference as string,
      withdrawal.user_id as string,
      "TR330006100519786457841326",
      "Ödeme Hizmetleri",
    ])
      expect(log, value).not.toContain(value);
  });
});
