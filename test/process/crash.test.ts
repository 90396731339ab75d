import { afterEach, describe, expect, it } from "vitest";
import { adminCommands } from "../support/admin-commands.js";
import { STORES, storeEnv } from "../support/harness.js";
import { depositBody } from "../support/merchant.js";
import { killAll, sendSigned, startServe, stopServe } from "../support/spawn.js";

/**
 * Crash safety of answered writes: the server is killed with SIGKILL in the middle of a stream of
 * deposits. Every deposit that was answered 200 before the kill must exist after a restart (on the
 * embedded store this proves group commit answers only after the fsync), and every retry by
 * reference then ends with exactly one transaction.
 */
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await killAll();
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe.each(STORES)("SIGKILL under load on %s", (kind) => {
  it("keeps every deposit that was answered 200", async () => {
    const store = await storeEnv(kind);
    cleanups.push(() => store.cleanup());
    const env = { ...store.env, PAYINTAKE_ALLOW_PRIVATE_CALLBACKS: "true" };
    const server = await startServe(env);
    const cli = adminCommands(server.url, server.env);
    await cli.addAccount({ bank: "Crash Bank", holder: "Crash Holder", iban: "TR520000000000000000000007" });
    const firm = await cli.ok(
      "firm",
      "create",
      "--name",
      "Crash",
      "--webhook-url",
      "http://127.0.0.1:9/cb",
      "--rate-limit",
      "100000",
    );
    const creds = { apiKey: firm.api_key as string, secret: firm.secret_key as string };

    const bodies = Array.from({ length: 400 }, () => depositBody());
    const answered: string[] = [];
    let stop = false;
    const workers = Array.from({ length: 20 }, async (_, w) => {
      for (let i = w; i < bodies.length && !stop; i += 20) {
        const body = bodies[i] as Record<string, unknown>;
        try {
          const res = await sendSigned(server.url, creds, { path: "/paymentapi/v1/deposits", body });
          if (res.status === 200 && res.json?.success === true) answered.push(body.reference as string);
        } catch {
          // Connection reset by the kill: the client does not know; it will retry by reference.
        }
      }
    });
    // Killed under load: some deposits answered, many in flight.
    await expect.poll(() => answered.length).toBeGreaterThan(10);
    server.child.kill("SIGKILL");
    stop = true;
    await Promise.all(workers);
    expect(answered.length).toBeGreaterThan(10);

    const again = await startServe(env);
    for (const reference of answered) {
      const res = await sendSigned(again.url, creds, {
        path: `/paymentapi/v1/transactions/by-reference/${reference}`,
      });
      expect(res.status, reference).toBe(200);
    }
    // Clients retry every deposit by reference: each ends with exactly one transaction.
    for (const body of bodies.slice(0, 120)) {
      const res = await sendSigned(again.url, creds, { path: "/paymentapi/v1/deposits", body });
      expect([200, 409]).toContain(res.status);
    }
    const list = await adminCommands(again.url, again.env).ok(
      "tx",
      "list",
      "--firm",
      String(firm.id),
      "--limit",
      "1000",
    );
    const references = (list.transactions as { reference: string }[]).map((t) => t.reference);
    expect(new Set(references).size).toBe(references.length);
    for (const reference of answered) expect(references).toContain(reference);
    await stopServe(again);
  });
});
