import { afterEach, describe, expect, it } from "vitest";
import { adminCommands } from "../support/admin-commands.js";
import { STORES, storeEnv } from "../support/harness.js";
import { depositBody } from "../support/merchant.js";
import { eventually, type Receiver, startReceiver } from "../support/receiver.js";
import { killAll, sendSigned, startServe, stopServe } from "../support/spawn.js";

/**
 * Crash safety of callbacks: the server is killed with SIGKILL between a decision and the delivery
 * of its callback (once while the receiver holds the request open, once the instant the decision is
 * answered). After a restart every decided transaction's callback arrives, with the same payload.
 */
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await killAll();
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe.each(STORES)("SIGKILL between decision and callback on %s", (kind) => {
  // Two servers started and a dozen CLI runs, on two cores shared with another test file: past
  // the suite's 30 s default on a busy machine, though nothing waits on time.
  it("delivers every decided transaction's callback after a restart", { timeout: 90_000 }, async () => {
    const store = await storeEnv(kind);
    cleanups.push(() => store.cleanup());
    const receiver: Receiver = await startReceiver();
    cleanups.push(() => receiver.close());
    const env = {
      ...store.env,
      PAYINTAKE_ALLOW_PRIVATE_CALLBACKS: "true",
      PAYINTAKE_CALLBACK_TIMEOUT_MS: "1000",
      PAYINTAKE_CALLBACK_LEASE_MS: "2000",
      PAYINTAKE_CALLBACK_POLL_MS: "50",
    };
    const server = await startServe(env);
    const cli = adminCommands(server.url, server.env);
    await cli.addAccount({ bank: "B", holder: "H", iban: "TR950000000000000000000009" });
    const firm = await cli.ok("firm", "create", "--name", "Crash", "--webhook-url", receiver.url);
    const creds = { apiKey: firm.api_key as string, secret: firm.secret_key as string };
    const ids: number[] = [];
    for (let i = 0; i < 2; i++) {
      const body = depositBody();
      expect((await sendSigned(server.url, creds, { path: "/paymentapi/v1/deposits", body })).status).toBe(
        200,
      );
      const q = await sendSigned(server.url, creds, {
        path: `/paymentapi/v1/transactions/by-reference/${body.reference}`,
      });
      ids.push(q.json.data.id);
    }

    // 1: the receiver holds the first callback open; the server dies mid-send.
    receiver.behave(() => ({ hang: true }));
    await cli.ok("tx", "approve", String(ids[0]), "--note", "paid");
    await receiver.waitFor(1);
    // 2: the second decision is answered, and the server dies at once.
    const decided = await cli.ok("tx", "reject", String(ids[1]));
    server.child.kill("SIGKILL");
    await server.child.waitExit(10_000);
    expect(decided.transaction.status).toBe("rejected");

    receiver.behave(() => ({ status: 200 }));
    const again = await startServe(env);
    const events = await eventually(async () => {
      const got = new Map(receiver.received.map((r) => [JSON.parse(r.body).id, JSON.parse(r.body).event]));
      return got.size === 2 ? got : undefined;
    }, 30_000);
    expect(events.get(ids[0])).toBe("deposit.approved");
    expect(events.get(ids[1])).toBe("deposit.rejected");

    // Both end delivered, and every copy of one callback had the same bytes.
    const list = await adminCommands(again.url, again.env).ok("callback", "list", "--firm", String(firm.id));
    await eventually(async () => {
      const l = await adminCommands(again.url, again.env).ok("callback", "list", "--firm", String(firm.id));
      return l.callbacks.every((c: { status: string }) => c.status === "delivered") ? true : undefined;
    }, 30_000);
    expect(list.callbacks).toHaveLength(2);
    const first = receiver.received.filter((r) => JSON.parse(r.body).id === ids[0]);
    for (const r of first) {
      const { hashcode: _h, ...rest } = JSON.parse(r.body);
      const { hashcode: _h0, ...rest0 } = JSON.parse(first[0]?.body ?? "");
      expect(rest).toEqual(rest0);
    }
    const shown = await adminCommands(again.url, again.env).ok(
      "callback",
      "show",
      String(list.callbacks[0].id),
    );
    expect(shown.attempts.length).toBeGreaterThan(0);
    await stopServe(again);
  });
});
