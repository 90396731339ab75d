import { randomBytes } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { call, depositJson, pool, signedCall } from "../shared/client.js";
import { DEPOSIT_PATH, percentile } from "../shared/load.js";
import type { PayintakeInstance } from "../shared/payintake.js";

/**
 * Callback delivery, measured end to end against a local receiver (it plays the merchant and answers
 * 200 at once):
 * - latency at idle: one approval at a time; from sending the approval to the callback's arrival;
 * - throughput: a burst of approvals from 32 concurrent operators; callbacks received per second from
 *   the first approval to the last callback (decision and delivery together, as a merchant sees it).
 */
export interface CallbackBenchResult {
  idle: { count: number; p50: number; p99: number; max: number };
  burst: {
    count: number;
    seconds: number;
    perSecond: number;
    decisionsPerSecond: number;
    /** Callbacks/s after the last approval was answered: delivery alone, nothing else running. */
    drainPerSecond: number;
    duplicates: number;
  };
}

export async function benchCallbacks(
  server: PayintakeInstance,
  opts: { idle: number; burst: number },
): Promise<CallbackBenchResult> {
  const url = server.child.url;
  const adminHeaders = { authorization: `Bearer ${server.adminToken}`, "content-type": "application/json" };
  const arrivals = new Map<number, number>();
  const waiting = new Map<number, () => void>();
  let duplicates = 0;
  const receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const at = performance.now();
      res.writeHead(200).end("ok");
      const id = JSON.parse(Buffer.concat(chunks).toString("utf8")).id as number;
      if (arrivals.has(id)) duplicates++;
      else arrivals.set(id, at);
      waiting.get(id)?.();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  try {
    const port = (receiver.address() as AddressInfo).port;
    const firm = await call(
      url,
      "POST",
      "/admin/v1/firms",
      adminHeaders,
      JSON.stringify({
        name: "Callback Bench",
        webhook_url: `http://127.0.0.1:${port}/cb`,
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
      adminHeaders,
      JSON.stringify({
        bank_name: "Akbank",
        holder_name: "Bench",
        iban: "TR020006100519786457841399",
      }),
    );

    // Pending deposits to decide.
    const run = randomBytes(4).toString("hex");
    const total = opts.idle + opts.burst;
    await pool(
      Array.from({ length: total }, (_v, i) => i),
      32,
      async (i) => {
        const res = await signedCall(url, creds, "POST", DEPOSIT_PATH, depositJson(`${run}-${i}`));
        if (res.status !== 200) throw new Error(`deposit answered ${res.status}`);
      },
    );
    // The deposit's answer carries no id: ask by reference, signed, as a merchant would.
    const ids: number[] = new Array(total).fill(0);
    await pool(
      Array.from({ length: total }, (_v, i) => i),
      32,
      async (i) => {
        const res = await signedCall(
          url,
          creds,
          "GET",
          `/paymentapi/v1/transactions/by-reference/R-${run}-${i}`,
        );
        if (res.status !== 200) throw new Error(`query answered ${res.status}`);
        ids[i] = res.json.data.id as number;
      },
    );

    const approve = async (id: number) => {
      const res = await call(
        url,
        "POST",
        `/admin/v1/transactions/${id}/approve`,
        adminHeaders,
        '{"actor":"operator:bench"}',
      );
      if (res.status !== 200) throw new Error(`approve ${id} answered ${res.status}`);
    };

    // Idle: one at a time.
    const latencies: number[] = [];
    for (const id of ids.slice(0, opts.idle)) {
      const arrived = new Promise<void>((resolve) => waiting.set(id, resolve));
      const t0 = performance.now();
      await approve(id);
      await arrived;
      latencies.push((arrivals.get(id) ?? Number.NaN) - t0);
      waiting.delete(id);
    }
    latencies.sort((a, b) => a - b);

    // Burst: everything else, 32 operators at once.
    const burstIds = ids.slice(opts.idle);
    const allArrived = new Promise<void>((resolve) => {
      let left = burstIds.length;
      for (const id of burstIds) waiting.set(id, () => --left === 0 && resolve());
    });
    const b0 = performance.now();
    await pool(burstIds, 32, approve);
    const decidedAt = performance.now();
    await Promise.race([allArrived, new Promise((r) => setTimeout(r, 120_000))]);
    const last = Math.max(...burstIds.map((id) => arrivals.get(id) ?? Number.POSITIVE_INFINITY));
    const seconds = (last - b0) / 1000;
    return {
      idle: {
        count: latencies.length,
        p50: percentile(latencies, 0.5),
        p99: percentile(latencies, 0.99),
        max: latencies.at(-1) ?? Number.NaN,
      },
      burst: {
        count: burstIds.length,
        seconds,
        perSecond: burstIds.length / seconds,
        decisionsPerSecond: burstIds.length / ((decidedAt - b0) / 1000),
        drainPerSecond:
          burstIds.filter((id) => (arrivals.get(id) ?? 0) > decidedAt).length / ((last - decidedAt) / 1000),
        duplicates,
      },
    };
  } finally {
    receiver.closeAllConnections();
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
  }
}
