import { describe, expect, it } from "vitest";
import type { CallbackSender } from "../../src/callbacks/sender.js";
import { createOutboxWorker, type OutboxWorkerOptions } from "../../src/callbacks/worker.js";
import type { CallbackRepository, ClaimedCallback } from "../../src/store/callbacks/callbacks.js";

/**
 * The worker's scheduling, with its store and sender played by small fakes (the store-backed
 * behaviour is covered against both databases in test/api/callbacks.test.ts).
 */
const row = (id: number, origin = "http://a:80"): ClaimedCallback => ({
  id,
  transaction_id: id,
  firm_id: 1,
  event: "deposit.approved",
  url: `${origin}/cb`,
  origin,
  payload: '{"id":1}',
  hash_input: "r|deposit|approved|1.00",
  step: 0,
  attempts: 0,
  claimed_attempt: 1,
  schedule_version: 0,
});

/**
 * Like the callbacks table: claimed rows leave the pool, released ones come back, and a claim takes
 * at most `perOrigin` rows of a receiver (`perSlowOrigin` of a slow one), as claimDue does.
 */
function table(rows: ClaimedCallback[]): CallbackRepository & { add(r: ClaimedCallback): void } {
  const available = new Map(rows.map((r) => [r.id, r]));
  return {
    add(r: ClaimedCallback) {
      rows.push(r);
      available.set(r.id, r);
    },
    claimDue: async (o: {
      limit: number;
      excludeOrigins: string[];
      perOrigin: number;
      slowOrigins?: string[];
      perSlowOrigin?: number;
    }) => {
      const taken = new Map<string, number>();
      const out: ClaimedCallback[] = [];
      for (const r of available.values()) {
        if (out.length >= o.limit || o.excludeOrigins.includes(r.origin)) continue;
        const cap = o.slowOrigins?.includes(r.origin) ? (o.perSlowOrigin ?? 1) : o.perOrigin;
        if ((taken.get(r.origin) ?? 0) >= cap) continue;
        taken.set(r.origin, (taken.get(r.origin) ?? 0) + 1);
        out.push(r);
      }
      for (const r of out) available.delete(r.id);
      return out;
    },
    release: async (id: number) => {
      const r = rows.find((x) => x.id === id);
      if (r) available.set(id, r);
    },
    recordAttempt: async () => {},
  } as unknown as CallbackRepository & { add(r: ClaimedCallback): void };
}

/** A worker over the given table and sender, with a fixed secret and no randomness. */
function workerWith(callbacks: CallbackRepository, sender: CallbackSender, options: OutboxWorkerOptions) {
  return createOutboxWorker({
    callbacks,
    secretFor: async () => ({ secret: "sk" }),
    sender,
    settle: async () => {},
    now: Date.now,
    random: () => 0.5,
    log: { warn: () => {}, error: () => {} },
    options,
  });
}

function harness(claims: (call: number) => Promise<ClaimedCallback[]>) {
  const sent: { id: string; at: number }[] = [];
  let calls = 0;
  const callbacks = {
    claimDue: () => claims(calls++),
    release: async () => {},
    recordAttempt: async () => {},
  } as unknown as CallbackRepository;
  const sender: CallbackSender = {
    async send(_url, _body, headers) {
      sent.push({ id: headers["x-callback-id"] ?? "", at: Date.now() });
      return { status: 200, durationMs: 1 };
    },
    close: async () => {},
  };
  const worker = workerWith(callbacks, sender, {
    concurrency: 4,
    perOrigin: 2,
    hangingPerOrigin: 2,
    pollMs: 60_000,
    leaseMs: 60_000,
    slowAfterMs: 1_000,
  });
  return { worker, sent, calls: () => calls };
}

describe("outbox worker", () => {
  it("a poke during a claim that finds nothing makes it look again at once, not at the next poll", async () => {
    let release: () => void = () => {};
    const { worker, sent, calls } = harness(async (call) => {
      if (call === 0) {
        await new Promise<void>((r) => (release = r));
        return [];
      }
      return call === 1 ? [row(7)] : [];
    });
    worker.start();
    // The first claim is under way (and finds nothing once released).
    await expect.poll(() => calls()).toBe(1);
    worker.poke();
    release();
    // Polls are a minute apart here: only the poke's second look finds row 7 in time.
    await expect.poll(() => sent.map((s) => s.id)).toEqual(["7"]);
    await worker.stop();
  });

  it("never has more than perOrigin sends in flight for one origin, nor more than concurrency in all", async () => {
    const inFlight = new Map<string, number>();
    let total = 0;
    let maxA = 0;
    let maxAll = 0;
    const rows = [
      ...Array.from({ length: 10 }, (_v, i) => row(i + 1, "http://a:80")),
      row(100, "http://b:80"),
    ];
    const callbacks = table(rows);
    const sent: string[] = [];
    const sender: CallbackSender = {
      async send(url, _body, headers) {
        const origin = new URL(url).origin;
        sent.push(headers["x-callback-id"] ?? "");
        total++;
        inFlight.set(origin, (inFlight.get(origin) ?? 0) + 1);
        maxAll = Math.max(maxAll, total);
        if (origin === "http://a") maxA = Math.max(maxA, inFlight.get(origin) ?? 0);
        await new Promise((r) => setTimeout(r, 20));
        total--;
        inFlight.set(origin, (inFlight.get(origin) ?? 1) - 1);
        return { status: 200, durationMs: 20 };
      },
      close: async () => {},
    };
    const worker = workerWith(callbacks, sender, {
      concurrency: 4,
      perOrigin: 2,
      hangingPerOrigin: 2,
      pollMs: 10,
      leaseMs: 60_000,
      slowAfterMs: 1_000,
    });
    worker.start();
    await expect.poll(() => sent.length).toBeGreaterThanOrEqual(rows.length);
    await worker.stop();
    expect(maxA).toBe(2);
    expect(maxAll).toBeLessThanOrEqual(4);
    // The other receiver was not made to wait behind the first one's backlog.
    expect(sent.indexOf("100")).toBeLessThan(3);
    expect(new Set(sent).size).toBe(rows.length);
  });
});

describe("outbox worker, many slow receivers", () => {
  it("receivers known to hang hold half the slots at most, claimed or in flight: one that answers goes out at once", async () => {
    // Twelve receivers that hang 400 ms (slow: slowAfterMs is 200): one attempt each first.
    const callbacks = table(Array.from({ length: 12 }, (_v, i) => row(i + 1, `http://hang${i}:80`)));
    /** Claims made: the fake table takes its rows when called. */
    let claims = 0;
    const claimDue = callbacks.claimDue.bind(callbacks);
    callbacks.claimDue = (o) => {
      claims++;
      return claimDue(o);
    };
    const starts: { origin: string; at: number }[] = [];
    let slowNow = 0;
    /**
     * The most attempts to slow receivers counted against the slots at once, as the worker counts
     * them when each starts. An attempt that outlasts its receiver's usual time moves out of the
     * slots (receiver-speed.ts), and another may take its place: so the sender may see more slow
     * attempts at once than this (counting them there failed the test on a busy machine, where the
     * measurement ran long enough for the first ones to be moved), but never more than all slots.
     */
    let slowMax = 0;
    let sentToSlowMax = 0;
    const sender: CallbackSender = {
      async send(url) {
        const origin = new URL(url).origin;
        starts.push({ origin, at: Date.now() });
        if (!origin.includes("hang")) return { status: 200, durationMs: 1 };
        slowNow++;
        sentToSlowMax = Math.max(sentToSlowMax, slowNow);
        const counted = worker
          .receivers()
          .filter((r) => r.slow)
          .reduce((n, r) => n + r.inFlight - r.hanging, 0);
        slowMax = Math.max(slowMax, counted);
        await new Promise((r) => setTimeout(r, 400));
        slowNow--;
        return { error: "timed out after 400 ms", durationMs: 400 };
      },
      close: async () => {},
    };
    const worker = workerWith(callbacks, sender, {
      concurrency: 8,
      perOrigin: 2,
      hangingPerOrigin: 2,
      pollMs: 20,
      leaseMs: 60_000,
      slowAfterMs: 200,
    });
    worker.start();
    // Until the worker has recorded all twelve as slow, not merely until their sends returned: it
    // records an attempt after its send resolves, and on a busy machine that came after the
    // backlog below was claimed, by a worker that did not know them slow yet.
    const knownSlow = () =>
      worker.receivers().filter((r) => r.origin.includes("hang") && r.slow && r.inFlight === 0).length;
    await expect.poll(() => ({ knownSlow: knownSlow(), slowNow })).toEqual({ knownSlow: 12, slowNow: 0 });
    // All twelve known slow, none in flight. Now a backlog of theirs comes due, then a merchant's
    // whose receiver answers.
    slowMax = 0;
    sentToSlowMax = 0;
    for (let i = 0; i < 72; i++) callbacks.add(row(100 + i, `http://hang${i % 12}:80`));
    const claimsBefore = claims;
    worker.poke();
    // A claim has taken from the backlog before the merchant's rows come.
    await expect.poll(() => claims).toBeGreaterThan(claimsBefore);
    const added = Date.now();
    for (let i = 0; i < 20; i++) callbacks.add(row(1_000 + i, "http://ok:80"));
    worker.poke();
    await expect
      .poll(() => starts.filter((s) => s.origin === "http://ok").length, { interval: 2 })
      .toBeGreaterThanOrEqual(20);
    await worker.stop();
    const healthy = starts.filter((s) => s.origin === "http://ok");
    expect(healthy).toHaveLength(20);
    // Before: 400 ms, a whole hang (the claim-ahead room was full of rows for hanging receivers).
    expect((healthy[0]?.at ?? Number.POSITIVE_INFINITY) - added).toBeLessThan(100);
    expect(slowMax).toBeGreaterThan(0);
    expect(slowMax).toBeLessThanOrEqual(4);
    expect(sentToSlowMax).toBeLessThanOrEqual(8);
  });
});

describe("outbox worker, lease heartbeat", () => {
  it("renews the rows it holds, and keeps the rows claimed while a renewal is under way", async () => {
    const callbacks = table([row(1)]);
    const renewals: number[][] = [];
    let finishRenewal: () => void = () => {};
    (callbacks as unknown as { renewLeases: unknown }).renewLeases = async (ids: number[]) => {
      renewals.push([...ids]);
      if (renewals.length === 1) await new Promise<void>((r) => (finishRenewal = r));
      return ids;
    };
    const sent: string[] = [];
    let answer: () => void = () => {};
    const answered = new Promise<void>((r) => (answer = r));
    const sender: CallbackSender = {
      async send(_url, _body, headers) {
        sent.push(headers["x-callback-id"] ?? "");
        await answered;
        return { status: 200, durationMs: 1 };
      },
      close: async () => {},
    };
    // Two sends at a time to the receiver and none moved aside as hanging: more rows wait in memory.
    const worker = workerWith(callbacks, sender, {
      concurrency: 4,
      perOrigin: 2,
      hangingPerOrigin: 0,
      pollMs: 10,
      leaseMs: 1_500,
      slowAfterMs: 60_000,
    });
    const until = (check: () => boolean) => expect.poll(check, { interval: 5 }).toBe(true);
    worker.start();
    await until(() => renewals.length === 1);
    expect(renewals[0]).toEqual([1]);
    // Claimed while the renewal runs: one starts (the receiver's second slot), two wait.
    for (const id of [2, 3, 4]) callbacks.add(row(id));
    worker.poke();
    await until(() => sent.length === 2);
    finishRenewal();
    answer();
    await until(() => sent.length === 4);
    await worker.stop();
    expect(sent).toEqual(["1", "2", "3", "4"]);
  });
});

describe("outbox worker, a lease nearly out", () => {
  it("sends nothing once its process stalled past half the lease since the claim: the row goes back", async () => {
    const callbacks = table([row(1)]);
    const events: string[] = [];
    const release = callbacks.release.bind(callbacks);
    callbacks.release = async (id, owner) => {
      events.push(`release ${id}`);
      await release(id, owner);
    };
    (callbacks as unknown as { renewLeases: unknown }).renewLeases = async () => [];
    let clock = 1_000_000;
    let stall = true;
    const worker = createOutboxWorker({
      callbacks,
      // The first lookup comes back 1.2 s of a 2 s lease later, as after a long pause.
      secretFor: async () => {
        if (stall) {
          stall = false;
          clock += 1_200;
        }
        return { secret: "sk" };
      },
      sender: {
        async send(_url, _body, headers) {
          events.push(`send ${headers["x-callback-id"]}`);
          return { status: 200, durationMs: 1 };
        },
        close: async () => {},
      },
      settle: async () => {},
      now: () => clock,
      random: () => 0.5,
      log: { warn: () => {}, error: () => {} },
      options: {
        concurrency: 4,
        perOrigin: 2,
        hangingPerOrigin: 1,
        pollMs: 10,
        leaseMs: 2_000,
        slowAfterMs: 60_000,
      },
    });
    worker.start();
    // Given back unsent; claimed again (a fresh lease), it goes out.
    await expect.poll(() => events, { interval: 5 }).toEqual(["release 1", "send 1"]);
    await worker.stop();
  });
});
