import { afterEach, describe, expect, it } from "vitest";
import { adminCommands } from "../support/admin-commands.js";
import { STORES, storeEnv } from "../support/harness.js";
import { depositBody } from "../support/merchant.js";
import { type Receiver, startReceiver } from "../support/receiver.js";
import { SEED, seeded } from "../support/seed.js";
import { killAll, type Server, sendSigned, sleep, startServe } from "../support/spawn.js";

/**
 * Three instances on one PostgreSQL deliver callbacks while instances are killed at random and
 * restarted: every callback arrives at least once, no callback is ever being delivered twice at
 * the same moment (leases), and no transaction is decided or assigned twice.
 */
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await killAll();
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe.runIf(STORES.includes("postgres"))(
  `three instances on PostgreSQL, killed at random (seed ${SEED})`,
  () => {
    it("every callback at least once, never two deliveries of one at once, one decision each", async () => {
      const random = seeded(SEED + 7);
      const store = await storeEnv("postgres");
      cleanups.push(() => store.cleanup());
      const receiver: Receiver = await startReceiver();
      cleanups.push(() => receiver.close());
      // Each delivery takes 60 ms to answer: two at once for one callback would overlap in time.
      const ANSWER_MS = 60;
      receiver.behave(() => ({ status: 200, body: "ok", delayMs: ANSWER_MS }));
      const env: Record<string, string> = {
        ...store.env,
        PAYINTAKE_ALLOW_PRIVATE_CALLBACKS: "true",
        PAYINTAKE_CALLBACK_POLL_MS: "100",
        PAYINTAKE_CALLBACK_LEASE_MS: "2000",
        PAYINTAKE_CALLBACK_TIMEOUT_MS: "1000",
        PAYINTAKE_CALLBACK_PER_ORIGIN: "4",
        LOG_LEVEL: "warn",
      };
      const servers: Server[] = [];
      for (let i = 0; i < 3; i++) servers.push(await startServe(env));
      const first = servers[0] as Server;
      const cli = adminCommands(first.url, first.env);
      await cli.ok(
        "account",
        "add",
        "--bank-name",
        "Multi",
        "--holder-name",
        "M",
        "--iban",
        "TR940000000000000000000027",
      );
      const firm = await cli.ok(
        "firm",
        "create",
        "--name",
        "Multi",
        "--webhook-url",
        receiver.url,
        "--rate-limit",
        "100000",
      );
      const creds = { apiKey: firm.api_key as string, secret: firm.secret_key as string };

      const ids: number[] = [];
      for (let i = 0; i < 120; i++) {
        const body = depositBody();
        const url = (servers[i % 3] as Server).url;
        expect((await sendSigned(url, creds, { path: "/paymentapi/v1/deposits", body })).status).toBe(200);
        const q = await sendSigned(url, creds, {
          path: `/paymentapi/v1/transactions/by-reference/${body.reference}`,
        });
        ids.push(q.json.data.id as number);
      }
      // Decide everything through all three instances at once, twice over: each decision is made once.
      const decide = async (id: number, n: number) => {
        const url = (servers[n % 3] as Server).url;
        const res = await fetch(`${url}/admin/v1/transactions/${id}/approve`, {
          method: "POST",
          headers: {
            authorization: `Bearer ${env.PAYINTAKE_ADMIN_TOKEN}`,
            "content-type": "application/json",
          },
          body: JSON.stringify({ actor: `cli:node-${n % 3}` }),
        }).catch(() => undefined);
        return res?.status;
      };
      const decisions = Promise.all(ids.flatMap((id, i) => [decide(id, i), decide(id, i + 1)]));

      // Meanwhile kill one instance at random every 250–600 ms, and start it again.
      const killedAt: number[] = [];
      for (let k = 0; k < 4; k++) {
        await sleep(250 + Math.floor(random() * 350));
        const victim = Math.floor(random() * 3);
        killedAt.push(Date.now());
        (servers[victim] as Server).child.kill("SIGKILL");
        await (servers[victim] as Server).child.exited;
        servers[victim] = await startServe(env);
      }
      const statuses = await decisions;
      // Two calls per transaction: never both answered 200 (a decision is made once).
      for (let i = 0; i < ids.length; i++) {
        const pair = statuses.slice(2 * i, 2 * i + 2).filter((st) => st === 200);
        expect(pair.length, `transaction ${ids[i]}`).toBeLessThanOrEqual(1);
      }
      // A decision whose instance died before answering may not have been made: make it now,
      // through whichever instance answers.
      for (const id of ids) {
        for (const server of servers) {
          const res = await fetch(`${server.url}/admin/v1/transactions/${id}`, {
            headers: { authorization: `Bearer ${env.PAYINTAKE_ADMIN_TOKEN}` },
          }).catch(() => undefined);
          if (!res) continue;
          const tx = (await res.json()) as { status: string };
          if (tx.status === "pending") await decide(id, servers.indexOf(server));
          break;
        }
      }

      const deadline = Date.now() + 40_000;
      for (;;) {
        const got = new Set(receiver.received.map((r) => JSON.parse(r.body).id as number));
        const missing = ids.filter((id) => !got.has(id));
        if (missing.length === 0) break;
        if (Date.now() > deadline) throw new Error(`never delivered: ${missing.join(", ")}`);
        await sleep(200);
      }
      // Which attempt each delivery was, and when it arrived. A killed instance's attempt is sent again
      // under its number once its lease ran out (2 s); one number twice within a moment means two
      // instances held the callback at once, two numbers that one retried before the other answered.
      const deliveriesOf = (cb: string) =>
        receiver.received
          .filter((r) => String(r.headers["x-callback-id"]) === cb)
          .map((r) => `attempt ${r.headers["x-callback-attempt"]} at ${r.at}`)
          .join(", ");
      // One callback per transaction (one decision each), and its deliveries never overlapped.
      const byCallback = new Map<string, number[]>();
      const callbackOf = new Map<number, Set<string>>();
      for (const r of receiver.received) {
        const cb = String(r.headers["x-callback-id"]);
        byCallback.set(cb, [...(byCallback.get(cb) ?? []), r.at]);
        const tx = JSON.parse(r.body).id as number;
        callbackOf.set(tx, (callbackOf.get(tx) ?? new Set()).add(cb));
      }
      // One decision per transaction in its history, whichever instance made it.
      const audit = (await (
        await fetch(`${(servers[0] as Server).url}/admin/v1/audit?entity_type=transaction&limit=1000`, {
          headers: { authorization: `Bearer ${env.PAYINTAKE_ADMIN_TOKEN}` },
        })
      ).json()) as { entity_id: string; action: string }[];
      const decisionsOf = new Map<string, number>();
      for (const e of audit) decisionsOf.set(e.entity_id, (decisionsOf.get(e.entity_id) ?? 0) + 1);
      for (const id of ids) expect(decisionsOf.get(String(id)), `transaction ${id}`).toBe(1);
      expect(callbackOf.size).toBe(ids.length);

      for (const [cb, times] of byCallback) {
        const sorted = [...times].sort((a, b) => a - b);
        for (let i = 1; i < sorted.length; i++) {
          expect(
            (sorted[i] as number) - (sorted[i - 1] as number),
            `callback ${cb}: ${deliveriesOf(cb)}; kills at ${killedAt.join(", ")}`,
          ).toBeGreaterThanOrEqual(ANSWER_MS - 5);
        }
      }
      const repeats = [...byCallback.values()].filter((t) => t.length > 1).length;
      console.log(
        `three instances (seed ${SEED}): ${ids.length} callbacks delivered, ${repeats} of them more than once, 4 kills`,
      );
    }, 120_000);
  },
);
