import { createHmac } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { STORES, startTestServer, storeEnv, type TestServer } from "../support/harness.js";
import { addAccount, createFirm, depositBody, send, type TestFirm } from "../support/merchant.js";
import { eventually, type Receiver, startReceiver } from "../support/receiver.js";
import { withStore } from "../support/stored.js";

/**
 * A callback whose firm's secret key does not open (its sealed value was moved from another firm's
 * row, ADR 0009) cannot be signed. It is still an attempt: on record with the reason, retried on
 * the schedule and, should nobody fix the key, marked failed like any other, where operators look
 * for callbacks that do not arrive. Once the firm has a new secret it goes out signed with it.
 *
 * Before: the worker threw before recording anything; the row stayed leased, was taken again each
 * time its lease ran out (every minute, for ever), had no attempts, never left `pending` and never
 * showed in `callback list --status failed`: only a log line said why.
 */
describe.each(STORES)("a callback that cannot be signed (%s)", (kind) => {
  let own: Awaited<ReturnType<typeof storeEnv>>;
  let server: TestServer;
  let receiver: Receiver;
  let firm: TestFirm;
  let depositId: number;
  const start = () =>
    startTestServer(kind, {
      ...own.env,
      PAYINTAKE_CALLBACK_POLL_MS: "25",
      PAYINTAKE_CALLBACK_LEASE_MS: "3000",
      PAYINTAKE_CALLBACK_TIMEOUT_MS: "1500",
      LOG_LEVEL: "warn",
    });

  beforeAll(async () => {
    own = await storeEnv(kind);
    receiver = await startReceiver();
    server = await start();
    await addAccount(server);
    firm = await createFirm(server, { webhook_url: receiver.url });
    const other = await createFirm(server);
    const body = depositBody();
    expect((await send(server, firm, { path: "/paymentapi/v1/deposits", body })).status).toBe(200);
    const q = await send(server, firm, {
      path: `/paymentapi/v1/transactions/by-reference/${body.reference}`,
    });
    depositId = q.json.data.id;
    await server.close();
    // The other firm's sealed secret copied into this firm's row, with SQL, while no server runs.
    await withStore(own.env, async (store) => {
      const { secret_sealed } = await store.db
        .selectFrom("firms")
        .select("secret_sealed")
        .where("id", "=", other.id)
        .executeTakeFirstOrThrow();
      await store.db.updateTable("firms").set({ secret_sealed }).where("id", "=", firm.id).execute();
    });
    server = await start();
  }, 60_000);
  afterAll(async () => {
    await server?.close();
    await receiver?.close();
    await own?.cleanup();
  });

  it("is an attempt on record, retried on schedule, and goes out signed once the firm has a new secret", async () => {
    const approved = await server.admin("POST", `/admin/v1/transactions/${depositId}/approve`, {
      actor: "operator:ayse",
    });
    expect(approved.status).toBe(200);
    const id = approved.json.callback_id as number;
    const first = await eventually(async () => {
      const c = (await server.admin("GET", `/admin/v1/callbacks/${id}`)).json;
      return c.attempts.length > 0 ? c : undefined;
    });
    expect(first.status).toBe("pending");
    expect(first.attempts).toHaveLength(1);
    expect(first.attempts[0]).toMatchObject({ outcome: "retry", http_status: null });
    expect(first.attempts[0].error).toMatch(/secret key does not open/);
    const due = Date.parse(first.next_attempt_at) - server.clock.now();
    expect(due).toBeGreaterThan(8_000);
    // Not taken again when its lease (3 s here, by the server's clock) runs out: it waits for its
    // next attempt, over several polls (25 ms each).
    server.clock.advance(3_500);
    await new Promise((r) => setTimeout(r, 200));
    expect((await server.admin("GET", `/admin/v1/callbacks/${id}`)).json.attempts).toHaveLength(1);
    expect(receiver.received).toHaveLength(0);

    const rotated = await server.admin("POST", `/admin/v1/firms/${firm.id}/rotate-secret`);
    expect(rotated.status).toBe(200);
    const secret = rotated.json.secret_key as string;
    server.clock.advance(11_001);
    const [got] = await receiver.waitFor(1);
    const body = got?.body ?? "";
    const signature = createHmac("sha256", secret)
      .update(`${got?.headers["x-timestamp"]}\n${body}`)
      .digest("hex");
    expect(got?.headers["x-signature"]).toBe(signature);
    expect(got?.headers["x-callback-attempt"]).toBe("2");
    const done = await eventually(async () => {
      const c = (await server.admin("GET", `/admin/v1/callbacks/${id}`)).json;
      return c.status === "delivered" ? c : undefined;
    });
    expect(done.attempts.map((a: { outcome: string }) => a.outcome)).toEqual(["retry", "delivered"]);
  }, 30_000);
});
