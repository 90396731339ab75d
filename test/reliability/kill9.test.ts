import { afterEach, describe, expect, it } from "vitest";
import { adminCommands } from "../support/admin-commands.js";
import { STORES, storeEnv } from "../support/harness.js";
import { depositBody } from "../support/merchant.js";
import { type Receiver, startReceiver } from "../support/receiver.js";
import { KILLS, SEED, seeded } from "../support/seed.js";
import { killAll, sendSigned, sleep, startServe, stopServe } from "../support/spawn.js";
import { withStore } from "../support/stored.js";

/**
 * The server is killed with SIGKILL at seeded random moments while clients create deposits and
 * operators approve them, KILLS times over (30; `RELIABILITY_KILLS` to change, `RELIABILITY_SEED`
 * to replay). Nothing may be lost: every deposit answered 200 exists exactly once after the
 * restarts; clients that lost their answer retry by reference and end with exactly one transaction
 * each; every decided transaction's callback reaches the merchant.
 */
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await killAll();
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe.each(STORES)(`kill -9 at random moments under load on %s (seed ${SEED})`, (kind) => {
  it(`${KILLS} kills: nothing answered is lost, retries end with one transaction each, every callback arrives`, async () => {
    const random = seeded(SEED + (kind === "postgres" ? 1 : 0));
    const store = await storeEnv(kind);
    cleanups.push(() => store.cleanup());
    const receiver: Receiver = await startReceiver();
    cleanups.push(() => receiver.close());
    const env: Record<string, string> = {
      ...store.env,
      PAYINTAKE_ALLOW_PRIVATE_CALLBACKS: "true",
      PAYINTAKE_CALLBACK_POLL_MS: "100",
      // A killed instance's leases must run out quickly for the next one (PostgreSQL).
      PAYINTAKE_CALLBACK_LEASE_MS: "2000",
      PAYINTAKE_CALLBACK_TIMEOUT_MS: "1000",
      LOG_LEVEL: "warn",
    };
    let server = await startServe(env);
    const cli = adminCommands(server.url, server.env);
    await cli.addAccount({ bank: "Kill Bank", holder: "K", iban: "TR730000000000000000000017" });
    const firm = await cli.ok(
      "firm",
      "create",
      "--name",
      "Kill",
      "--webhook-url",
      receiver.url,
      "--rate-limit",
      "100000",
    );
    const creds = { apiKey: firm.api_key as string, secret: firm.secret_key as string };
    const admin = async (url: string, method: string, path: string, body?: unknown) => {
      const res = await fetch(`${url}${path}`, {
        method,
        headers: { authorization: `Bearer ${env.PAYINTAKE_ADMIN_TOKEN}`, "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: res.status, json: (await res.json().catch(() => undefined)) as any };
    };

    const sent = new Map<string, Record<string, unknown>>();
    const answered = new Set<string>();
    const approved = new Set<number>();
    for (let k = 0; k < KILLS; k++) {
      let stop = false;
      const url = server.url;
      // Four clients, each paced and sending at most six deposits a cycle: requests are in flight
      // whenever the kill comes, and the whole run stays under the admin list's 1,000.
      const clients = Array.from({ length: 4 }, async () => {
        for (let n = 0; n < 6 && !stop; n++) {
          await sleep(Math.floor(random() * 60));
          const body = depositBody();
          sent.set(body.reference as string, body);
          try {
            const res = await sendSigned(url, creds, { path: "/paymentapi/v1/deposits", body });
            if (res.status === 200) {
              answered.add(body.reference as string);
              // An operator approves some of them right away.
              if (random() < 0.3) {
                const q = await sendSigned(url, creds, {
                  path: `/paymentapi/v1/transactions/by-reference/${body.reference}`,
                });
                const id = q.json?.data?.id as number | undefined;
                if (
                  id &&
                  (await admin(url, "POST", `/admin/v1/transactions/${id}/approve`, { actor: "cli:kill" }))
                    .status === 200
                ) {
                  approved.add(id);
                }
              }
            }
          } catch {
            // The kill cut the connection: this client does not know what happened.
          }
        }
      });
      await sleep(50 + Math.floor(random() * 450));
      server.child.kill("SIGKILL");
      stop = true;
      await Promise.all(clients);
      await server.child.exited;
      server = await startServe(env);
    }

    // Every answered deposit exists.
    for (const reference of answered) {
      const res = await sendSigned(server.url, creds, {
        path: `/paymentapi/v1/transactions/by-reference/${reference}`,
      });
      expect(res.status, reference).toBe(200);
    }
    // Clients that lost their answer: query by reference; 404 → send again with the same reference.
    for (const [reference, body] of sent) {
      if (answered.has(reference)) continue;
      const q = await sendSigned(server.url, creds, {
        path: `/paymentapi/v1/transactions/by-reference/${reference}`,
      });
      if (q.status === 404) {
        const again = await sendSigned(server.url, creds, { path: "/paymentapi/v1/deposits", body });
        expect(again.status, reference).toBe(200);
      } else expect(q.status).toBe(200);
    }
    const all = (await admin(server.url, "GET", "/admin/v1/transactions?limit=1000")).json as {
      reference: string;
      id: number;
      status: string;
    }[];
    expect(all.length).toBeLessThan(1000);
    const byReference = new Map<string, number>();
    for (const t of all) byReference.set(t.reference, (byReference.get(t.reference) ?? 0) + 1);
    expect([...byReference.values()].every((n) => n === 1)).toBe(true);
    expect(new Set(byReference.keys())).toEqual(new Set(sent.keys()));

    // Every decided transaction's callback arrives (approvals answered 200, and any whose answer was lost).
    const decided = all.filter((t) => t.status !== "pending").map((t) => t.id);
    for (const id of approved) expect(decided).toContain(id);
    const deadline = Date.now() + 30_000;
    for (;;) {
      const got = new Set(receiver.received.map((r) => JSON.parse(r.body).id as number));
      const missing = decided.filter((id) => !got.has(id));
      if (missing.length === 0) break;
      if (Date.now() > deadline) throw new Error(`callbacks never delivered for ${missing.join(", ")}`);
      await sleep(200);
    }

    // Every approval has its ledger posting and every posting its approval (issue 48): they commit
    // together or not at all, whatever the kills cut. Read once the last server has stopped.
    expect(await stopServe(server)).toEqual({ code: 0, signal: null });
    const postings = await withStore(env, async (s) => ({
      approved: await s.db.selectFrom("transactions").select("id").where("status", "=", "approved").execute(),
      posted: await s.db
        .selectFrom("ledger_postings")
        .select("idempotency_key")
        .where("kind", "=", "deposit_approved")
        .execute(),
    }));
    expect(postings.posted.map((p) => p.idempotency_key).sort()).toEqual(
      postings.approved.map((t) => `deposit-approved:${t.id}`).sort(),
    );
    console.log(
      `kill -9 (${kind}, seed ${SEED}): ${KILLS} kills, ${sent.size} deposits sent, ${answered.size} answered, ${decided.length} decided (${postings.approved.length} approved, each posted once), ${receiver.received.length} callback deliveries`,
    );
  }, 300_000);
});
