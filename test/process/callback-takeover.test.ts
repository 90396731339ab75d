import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { INTERRUPTED } from "../../src/store/callbacks/callbacks.js";
import { adminCommands } from "../support/admin-commands.js";
import { STORES, storeEnv } from "../support/harness.js";
import { depositBody } from "../support/merchant.js";
import { eventually, type Receiver, startReceiver } from "../support/receiver.js";
import { killAll, sendSigned, startServe } from "../support/spawn.js";

/**
 * Two workers on one PostgreSQL: while the sender of a callback lives, its heartbeat keeps a lease
 * shorter than the attempt; once it is killed mid-send, the lease lapses and the other worker
 * sends the callback, as the next attempt: the cut one is on record as interrupted. (The embedded
 * store runs one process and frees leases at start.)
 */
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await killAll();
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe.runIf(STORES.includes("postgres"))("a callback whose sender is killed mid-send", () => {
  // Two servers started and a dozen CLI runs, on two cores shared with another test file: past
  // the suite's 30 s default on a busy machine, though nothing waits on time.
  it("is kept by its live sender past its first lease, and taken over once the dead sender's lease lapses", {
    timeout: 90_000,
  }, async () => {
    const store = await storeEnv("postgres");
    cleanups.push(() => store.cleanup());
    const receiver: Receiver = await startReceiver();
    cleanups.push(() => receiver.close());
    receiver.behave((_r, n) => (n === 0 ? { hang: true } : { status: 200, body: "ok" }));
    // The lease is shorter than the send timeout: only the heartbeat keeps it while the attempt hangs.
    const env = {
      ...store.env,
      PAYINTAKE_ALLOW_PRIVATE_CALLBACKS: "true",
      PAYINTAKE_CALLBACK_TIMEOUT_MS: "10000",
      PAYINTAKE_CALLBACK_LEASE_MS: "2000",
      PAYINTAKE_CALLBACK_POLL_MS: "100",
      LOG_LEVEL: "warn",
    };
    const first = await startServe(env);
    const cli = adminCommands(first.url, first.env);
    await cli.addAccount({ bank: "B", holder: "H", iban: "TR950000000000000000000009" });
    const firm = await cli.ok("firm", "create", "--name", "Takeover", "--webhook-url", receiver.url);
    const creds = { apiKey: firm.api_key as string, secret: firm.secret_key as string };
    const body = depositBody();
    expect((await sendSigned(first.url, creds, { path: "/paymentapi/v1/deposits", body })).status).toBe(200);
    const q = await sendSigned(first.url, creds, {
      path: `/paymentapi/v1/transactions/by-reference/${body.reference}`,
    });
    const decided = await cli.ok("tx", "approve", String(q.json.data.id));
    const callbackId = decided.callback_id as number;
    // The first instance sends it (it is the only worker yet); the receiver holds the request open.
    await receiver.waitFor(1);
    const second = await startServe(env);

    const db = new pg.Client({ connectionString: store.env.DATABASE_URL });
    await db.connect();
    cleanups.push(() => db.end());
    const lease = async () =>
      (await db.query("SELECT lease_until, lease_owner FROM callbacks WHERE id = $1", [callbackId]))
        .rows[0] as { lease_until: string; lease_owner: string | null };
    const claimed = await lease();
    expect(claimed.lease_owner).not.toBeNull();
    // The first lease would have lapsed by now; the heartbeat moved it on, and the row stayed with
    // its live sender: the second worker, polling all along, did not send it.
    const renewed = await eventually(async () => {
      const l = await lease();
      return Number(l.lease_until) > Number(claimed.lease_until) &&
        Date.now() > Number(claimed.lease_until) + 500
        ? l
        : undefined;
    }, 8_000);
    expect(renewed.lease_owner).toBe(claimed.lease_owner);
    expect(receiver.received).toHaveLength(1);

    first.child.kill("SIGKILL");
    await first.child.waitExit(10_000);
    const [cut, again] = await receiver.waitFor(2, 15_000);
    expect(again?.headers["x-callback-id"]).toBe(String(callbackId));
    // The cut attempt keeps its number: the takeover sends the next one.
    expect([cut?.headers["x-callback-attempt"], again?.headers["x-callback-attempt"]]).toEqual(["1", "2"]);
    const shown = await eventually(async () => {
      const c = await adminCommands(second.url, second.env).ok("callback", "show", String(callbackId));
      return c.status === "delivered" ? c : undefined;
    }, 10_000);
    // On record: the cut attempt as interrupted (whether it arrived is not known), then the delivery.
    expect(
      shown.attempts.map((a: { attempt: number; outcome: string; error: string | null }) => [
        a.attempt,
        a.outcome,
        a.error,
      ]),
    ).toEqual([
      [1, "retry", INTERRUPTED],
      [2, "delivered", null],
    ]);
    expect((await lease()).lease_owner).toBeNull();
  });
});
