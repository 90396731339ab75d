import { percentile } from "../shared/load.js";
import type { PayintakeInstance } from "../shared/payintake.js";
import { approver, everyNth, pendingDeposits, sleep, startReceiver, until } from "./scene.js";

/**
 * Callbacks when a receiver misbehaves (issue 38), with default callback settings:
 * - steady: one receiver, approvals at a steady rate, a share of first attempts hanging (never
 *   answered; the sender cuts them at 10 s and retries them 10 s later): decision-to-delivery of
 *   the callbacks that did not hang, from sending the approval to the callback's arrival;
 * - kill: on PostgreSQL, the instance sending a batch of callbacks is killed mid-send beside a
 *   second instance: how long after the kill each of those callbacks arrives.
 */
export interface SteadyResult {
  rate: number;
  seconds: number;
  hangShare: number;
  count: number;
  hung: number;
  p50: number;
  p99: number;
  max: number;
  /** Callbacks that did not hang and still had not arrived when the wait ended. */
  missing: number;
  /** Hung callbacks delivered by a later attempt before the wait ended. */
  hungDelivered: number;
}

export interface KillResult {
  callbacks: number;
  /** Of those, in flight at the receiver when the instance was killed. */
  inFlightAtKill: number;
  /** From the kill to the last of them arriving, ms. */
  maxMs: number;
  p50Ms: number;
  missing: number;
}

export async function benchSteadyReceiver(
  server: PayintakeInstance,
  opts: { rate: number; seconds: number; hangShare: number },
): Promise<SteadyResult> {
  const receiver = await startReceiver();
  try {
    const count = Math.round(opts.rate * opts.seconds);
    const ids = await pendingDeposits(server.child.url, server.adminToken, receiver.url, count);
    // Which callbacks hang is drawn up front, so runs compare.
    const hanging = everyNth(ids, opts.hangShare);
    receiver.answer = (id, attempt) => (attempt === 1 && hanging.has(id) ? "hold" : 200);
    const approve = approver(server.child.url, server.adminToken);
    const sentAt = new Map<number, number>();
    const started = performance.now();
    const decisions: Promise<void>[] = [];
    for (let i = 0; i < ids.length; i++) {
      const due = started + (i * 1000) / opts.rate;
      const wait = due - performance.now();
      if (wait > 0) await sleep(wait);
      const id = ids[i] as number;
      sentAt.set(id, performance.now());
      decisions.push(approve(id));
    }
    await Promise.all(decisions);
    const normal = ids.filter((id) => !hanging.has(id));
    // Hung ones come back 10 s after their 10 s timeout: wait for them too, a minute at most.
    await until(() => ids.every((id) => receiver.delivered.has(id)), 60_000);
    const latencies = normal
      .filter((id) => receiver.delivered.has(id))
      .map((id) => (receiver.delivered.get(id) ?? 0) - (sentAt.get(id) ?? 0))
      .sort((a, b) => a - b);
    return {
      rate: opts.rate,
      seconds: opts.seconds,
      hangShare: opts.hangShare,
      count: normal.length,
      hung: hanging.size,
      p50: percentile(latencies, 0.5),
      p99: percentile(latencies, 0.99),
      max: latencies.at(-1) ?? Number.NaN,
      missing: normal.length - latencies.length,
      hungDelivered: [...hanging].filter((id) => receiver.delivered.has(id)).length,
    };
  } finally {
    await receiver.close();
  }
}

/**
 * `first` sends every callback of a batch (the receiver holds them all open) while `peer` runs
 * beside it; `first` is killed, the receiver starts answering, and the peer must send them all.
 */
export async function benchKilledWorker(
  first: PayintakeInstance,
  startPeer: () => Promise<PayintakeInstance>,
  opts: { callbacks: number },
): Promise<KillResult> {
  const receiver = await startReceiver();
  let holding = true;
  receiver.answer = () => (holding ? "hold" : 200);
  let peer: PayintakeInstance | undefined;
  try {
    const ids = await pendingDeposits(first.child.url, first.adminToken, receiver.url, opts.callbacks);
    const approve = approver(first.child.url, first.adminToken);
    for (const id of ids) await approve(id);
    // The first instance has claimed them all (some sent and held open, the rest waiting in its memory).
    await until(() => receiver.requests.size >= Math.min(ids.length, 16), 30_000);
    peer = await startPeer();
    // The peer polls beside it for a few seconds: the first instance's leases are renewed meanwhile.
    await sleep(2_000);
    const inFlightAtKill = receiver.requests.size;
    process.kill(first.child.pid, "SIGKILL");
    const killedAt = performance.now();
    holding = false;
    await until(() => ids.every((id) => receiver.delivered.has(id)), 60_000);
    const after = ids
      .filter((id) => receiver.delivered.has(id))
      .map((id) => (receiver.delivered.get(id) ?? 0) - killedAt)
      .sort((a, b) => a - b);
    return {
      callbacks: ids.length,
      inFlightAtKill,
      maxMs: after.at(-1) ?? Number.NaN,
      p50Ms: percentile(after, 0.5),
      missing: ids.length - after.length,
    };
  } finally {
    await peer?.cleanup();
    await receiver.close();
  }
}
