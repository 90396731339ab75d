import { afterEach, describe, expect, it } from "vitest";
import { adminCommands } from "../support/admin-commands.js";
import { STORES, storeEnv } from "../support/harness.js";
import { depositBody } from "../support/merchant.js";
import { eventually, type Receiver, startReceiver } from "../support/receiver.js";
import { SEED, seeded } from "../support/seed.js";
import { killAll, sendSigned, sleep, startServe, stopServe } from "../support/spawn.js";
import { withStore } from "../support/stored.js";

/**
 * Auto-cancel killed with SIGKILL at seeded random moments: 120 expired deposits, rejected by the
 * service in batches (each with its callback, in one database transaction) while the server is
 * killed again and again, mid-batch and mid-send. Afterwards each deposit is rejected exactly once,
 * by the service, with one audit entry and one callback, and every callback has reached the merchant.
 */
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await killAll();
  for (const c of cleanups.splice(0).reverse()) await c();
});

const DEPOSITS = 120;
const KILLS = 6;

describe.each(STORES)(`auto-cancel killed with SIGKILL on %s (seed ${SEED})`, (kind) => {
  it("each expired deposit is rejected once, with one callback, and every callback arrives", async () => {
    const random = seeded(SEED + 7 + (kind === "postgres" ? 1 : 0));
    const store = await storeEnv(kind);
    cleanups.push(() => store.cleanup());
    const receiver: Receiver = await startReceiver();
    cleanups.push(() => receiver.close());
    // Slow enough that a kill often lands while callbacks are in flight.
    receiver.behave(() => ({ status: 200, delayMs: 30 }));
    const env: Record<string, string> = {
      ...store.env,
      PAYINTAKE_ALLOW_PRIVATE_CALLBACKS: "true",
      PAYINTAKE_AUTO_CANCEL_INTERVAL_MS: "50",
      PAYINTAKE_CALLBACK_POLL_MS: "50",
      PAYINTAKE_CALLBACK_LEASE_MS: "2000",
      PAYINTAKE_CALLBACK_TIMEOUT_MS: "1000",
      LOG_LEVEL: "warn",
    };
    let server = await startServe(env);
    const cli = adminCommands(server.url, server.env);
    await cli.addAccount({ bank: "B", holder: "H", iban: "TR510000000000000000000025" });
    const provider = await cli.ok("provider", "create", "--name", "P", "--auto-cancel-minutes", "1");
    const firm = await cli.ok(
      "firm",
      "create",
      "--name",
      "Expiring",
      "--webhook-url",
      receiver.url,
      "--provider",
      String(provider.id),
      "--rate-limit",
      "100000",
    );
    const creds = { apiKey: firm.api_key as string, secret: firm.secret_key as string };
    for (let i = 0; i < DEPOSITS; i += 20) {
      await Promise.all(
        Array.from({ length: 20 }, async () => {
          const res = await sendSigned(server.url, creds, {
            path: "/paymentapi/v1/deposits",
            body: depositBody(),
          });
          expect(res.status).toBe(200);
        }),
      );
    }
    expect((await stopServe(server)).code).toBe(0);
    // An hour passes while no server runs: every deposit is past its minute.
    await withStore(env, async (s) => {
      const rows = await s.db
        .updateTable("transactions")
        .set((eb) => ({ created_at: eb("created_at", "-", 3_600_000) }))
        .where("firm_id", "=", firm.id)
        .returning("id")
        .execute();
      expect(rows).toHaveLength(DEPOSITS);
    });

    const delays: number[] = [];
    for (let k = 0; k < KILLS; k++) {
      server = await startServe(env);
      const delay = Math.floor(random() * 250);
      delays.push(delay);
      await sleep(delay);
      server.child.kill("SIGKILL");
      await server.child.waitExit(10_000);
    }
    server = await startServe(env);
    const ids = await eventually(async () => {
      const list = await adminCommands(server.url, server.env).ok(
        "callback",
        "list",
        "--firm",
        String(firm.id),
        "--limit",
        "1000",
      );
      const delivered = list.callbacks.filter((c: { status: string }) => c.status === "delivered");
      return delivered.length === DEPOSITS
        ? list.callbacks.map((c: { transaction_id: number }) => c.transaction_id)
        : undefined;
    }, 60_000);
    expect(new Set(ids).size).toBe(DEPOSITS);
    const got = new Set(receiver.received.map((r) => JSON.parse(r.body).id));
    for (const id of ids) expect(got.has(id)).toBe(true);
    for (const r of receiver.received) expect(JSON.parse(r.body).event).toBe("deposit.rejected");
    expect((await stopServe(server)).code).toBe(0);

    await withStore(env, async (s) => {
      const txs = await s.db
        .selectFrom("transactions")
        .select(["id", "status", "decided_by"])
        .where("firm_id", "=", firm.id)
        .execute();
      expect(txs.every((t) => t.status === "rejected" && t.decided_by === "service:auto-cancel")).toBe(true);
      const audit = await s.db
        .selectFrom("audit_log")
        .select("entity_id")
        .where("entity_type", "=", "transaction")
        .where("action", "=", "transaction.reject")
        .execute();
      expect(audit.map((a) => Number(a.entity_id)).sort((a, b) => a - b)).toEqual(
        txs.map((t) => t.id).sort((a, b) => a - b),
      );
    });
    console.log(
      `auto-cancel kill -9 (${kind}, seed ${SEED}): kills after ${delays.join(", ")} ms; ${receiver.received.length} deliveries for ${DEPOSITS} callbacks`,
    );
  }, 180_000);
});
