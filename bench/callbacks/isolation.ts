import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { call, depositJson, pool, signedCall } from "../shared/client.js";
import { DEPOSIT_PATH, percentile } from "../shared/load.js";
import type { PayintakeInstance } from "../shared/payintake.js";

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

interface Receiver {
  url: string;
  /** First arrival per callback id that was answered 200, on the bench's clock. */
  delivered: Map<number, number>;
  requests: Map<number, number>;
  /** Decides whether to leave this request unanswered. */
  hold: (id: number, attempt: number) => boolean;
  close(): Promise<void>;
}

async function startReceiver(): Promise<Receiver> {
  const held = new Set<ServerResponse>();
  const r: Receiver = {
    url: "",
    delivered: new Map(),
    requests: new Map(),
    hold: () => false,
    close: async () => {},
  };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const at = performance.now();
      const id = JSON.parse(Buffer.concat(chunks).toString("utf8")).id as number;
      r.requests.set(id, (r.requests.get(id) ?? 0) + 1);
      if (r.hold(id, Number(req.headers["x-callback-attempt"]))) {
        held.add(res);
        res.on("close", () => held.delete(res));
        return;
      }
      res.writeHead(200).end("ok");
      if (!r.delivered.has(id)) r.delivered.set(id, at);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  r.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/cb`;
  r.close = async () => {
    for (const res of held) res.destroy();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return r;
}

/** A firm whose webhook is the receiver, an account, and `n` pending deposits; their ids. */
async function pendingDeposits(server: PayintakeInstance, webhook: string, n: number): Promise<number[]> {
  const url = server.child.url;
  const headers = { authorization: `Bearer ${server.adminToken}`, "content-type": "application/json" };
  const firm = await call(
    url,
    "POST",
    "/admin/v1/firms",
    headers,
    JSON.stringify({
      name: "Isolation Bench",
      webhook_url: webhook,
      rate_limit_per_second: 1_000_000,
      max_pending_count: null,
      max_pending_amount: null,
    }),
  );
  if (firm.status !== 201) throw new Error(`firm create answered ${firm.status}`);
  const creds = { apiKey: firm.json.api_key as string, secret: firm.json.secret_key as string };
  await call(
    url,
    "POST",
    "/admin/v1/accounts",
    headers,
    JSON.stringify({ bank_name: "Akbank", holder_name: "Bench", iban: "TR020006100519786457841399" }),
  );
  const run = randomBytes(4).toString("hex");
  const ids: number[] = new Array(n).fill(0);
  await pool(
    Array.from({ length: n }, (_v, i) => i),
    16,
    async (i) => {
      const res = await signedCall(url, creds, "POST", DEPOSIT_PATH, depositJson(`${run}-${i}`));
      if (res.status !== 200) throw new Error(`deposit answered ${res.status}`);
      const q = await signedCall(url, creds, "GET", `/paymentapi/v1/transactions/by-reference/R-${run}-${i}`);
      ids[i] = q.json.data.id as number;
    },
  );
  return ids;
}

function approver(server: PayintakeInstance) {
  const headers = { authorization: `Bearer ${server.adminToken}`, "content-type": "application/json" };
  return async (id: number) => {
    const res = await call(
      server.child.url,
      "POST",
      `/admin/v1/transactions/${id}/approve`,
      headers,
      '{"actor":"operator:bench"}',
    );
    if (res.status !== 200) throw new Error(`approve ${id} answered ${res.status}`);
  };
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

async function until(check: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!check() && performance.now() < deadline) await sleep(50);
}

export async function benchSteadyReceiver(
  server: PayintakeInstance,
  opts: { rate: number; seconds: number; hangShare: number },
): Promise<SteadyResult> {
  const receiver = await startReceiver();
  try {
    const count = Math.round(opts.rate * opts.seconds);
    const ids = await pendingDeposits(server, receiver.url, count);
    // Which callbacks hang is drawn up front (every 1/share-th, spread evenly), so runs compare.
    const every = opts.hangShare > 0 ? Math.round(1 / opts.hangShare) : 0;
    const hanging = new Set(every > 0 ? ids.filter((_id, i) => i % every === every - 1) : []);
    receiver.hold = (id, attempt) => attempt === 1 && hanging.has(id);
    const approve = approver(server);
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
  receiver.hold = () => holding;
  let peer: PayintakeInstance | undefined;
  try {
    const ids = await pendingDeposits(first, receiver.url, opts.callbacks);
    const approve = approver(first);
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
