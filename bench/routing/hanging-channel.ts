import { randomBytes } from "node:crypto";
import { startChannelSimulator } from "../../src/routing/channels/simulator.js";
import { adminHeaders, call, depositJson, pool, signedCall } from "../shared/client.js";
import { DEPOSIT_PATH, percentile } from "../shared/load.js";
import type { PayintakeInstance } from "../shared/payintake.js";

/**
 * Deposit latency when the first channel hangs. The preferred account is behind an http channel
 * (played by the channel simulator in this process); a manual account is the fallback.
 * - normal: the channel accepts at once;
 * - unlucky: the channel hangs; the first deposits wait for its timeout, until its breaker opens;
 * - after: the breaker is open; deposits go straight to the fallback.
 */
export interface Latencies {
  count: number;
  p50: number;
  p99: number;
  max: number;
}

export interface RoutingBenchResult {
  timeoutMs: number;
  normal: Latencies;
  unlucky: number[];
  afterOpen: Latencies;
}

function summarise(ms: number[]): Latencies {
  const sorted = [...ms].sort((a, b) => a - b);
  return {
    count: ms.length,
    p50: percentile(sorted, 0.5),
    p99: percentile(sorted, 0.99),
    max: sorted.at(-1) ?? Number.NaN,
  };
}

export async function benchRouting(
  server: PayintakeInstance,
  opts: { requests: number; concurrency: number; timeoutMs: number },
): Promise<RoutingBenchResult> {
  const url = server.child.url;
  const admin = adminHeaders(server.adminToken);
  const sim = await startChannelSimulator({ behaviour: { kind: "accept" } });
  try {
    const firm = await call(
      url,
      "POST",
      "/admin/v1/firms",
      admin,
      JSON.stringify({
        name: "Routing Bench",
        webhook_url: "http://127.0.0.1:9/cb",
        rate_limit_per_second: 1_000_000,
        max_pending_count: null,
        max_pending_amount: null,
      }),
    );
    const creds = { apiKey: firm.json.api_key as string, secret: firm.json.secret_key as string };
    const channel = await call(
      url,
      "POST",
      "/admin/v1/channels",
      admin,
      JSON.stringify({ code: "BENCH", kind: "http", url: sim.url, timeout_ms: opts.timeoutMs }),
    );
    if (channel.status !== 201) throw new Error(`channel create answered ${channel.status}`);
    await call(
      url,
      "POST",
      "/admin/v1/accounts",
      admin,
      JSON.stringify({
        bank_name: "Akbank",
        holder_name: "Bench",
        iban: "TR290006100519786457841301",
        channel: "BENCH",
        bank_code: "AKBANK",
      }),
    );
    await call(
      url,
      "POST",
      "/admin/v1/accounts",
      admin,
      JSON.stringify({ bank_name: "Garanti", holder_name: "Bench", iban: "TR020006100519786457841302" }),
    );

    const run = randomBytes(4).toString("hex");
    let seq = 0;
    const deposit = async (): Promise<number> => {
      const t0 = performance.now();
      const res = await signedCall(url, creds, "POST", DEPOSIT_PATH, depositJson(`${run}-${seq++}`));
      if (res.status !== 200) throw new Error(`deposit answered ${res.status}`);
      return performance.now() - t0;
    };
    const phase = async () => {
      const ms: number[] = [];
      await pool(
        Array.from({ length: opts.requests }),
        opts.concurrency,
        async () => void ms.push(await deposit()),
      );
      return summarise(ms);
    };

    // Warm up the connections and the JIT, then measure.
    await pool(Array.from({ length: 200 }), opts.concurrency, async () => void (await deposit()));
    const normal = await phase();

    sim.behave({ kind: "hang" });
    const unlucky: number[] = [];
    for (let i = 0; i < 10; i++) {
      const ms = await deposit();
      if (ms < opts.timeoutMs / 2) break;
      unlucky.push(ms);
    }
    const afterOpen = await phase();
    return { timeoutMs: opts.timeoutMs, normal, unlucky, afterOpen };
  } finally {
    await sim.close();
  }
}
