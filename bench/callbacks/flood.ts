/**
 * The deposit flood of the callbacks-under-load cases, forked by load-scene.ts: autocannon at full
 * speed, its connections split over the api instances. It runs in a process of its own because in
 * the bench's, its busy event loop would delay the receiver's clock and show as callback latency.
 */
import { readFileSync } from "node:fs";
import { drive, percentile, processCpuSeconds, signedDepositRequest } from "../shared/load.js";
import type { FloodOrder, FloodResult } from "./load-scene.js";

/** The machine's steal and total jiffies so far (/proc/stat's first line); zeros without procfs. */
function stealJiffies(): { steal: number; total: number } {
  try {
    const values = (readFileSync("/proc/stat", "utf8").split("\n", 1)[0] ?? "")
      .trim()
      .split(/\s+/)
      .slice(1)
      .map(Number);
    return { steal: values[7] ?? 0, total: values.reduce((a, b) => a + b, 0) };
  } catch {
    return { steal: 0, total: 0 };
  }
}

process.once("message", async (message) => {
  const order = message as FloodOrder;
  const before = stealJiffies();
  const workerBefore = processCpuSeconds(order.workerPid);
  const startedAt = performance.now();
  const per = Math.ceil(order.connections / order.urls.length);
  const runs = await Promise.all(
    order.urls.map((url, i) =>
      drive({
        url,
        request: signedDepositRequest(order.creds),
        connections: per,
        seconds: order.seconds,
        warmupSeconds: 0,
        serverPid: order.pids[i] ?? -1,
        measureDb: i === 0,
      }),
    ),
  );
  const after = stealJiffies();
  const workerCpu = processCpuSeconds(order.workerPid) - workerBefore;
  const elapsedS = (performance.now() - startedAt) / 1000;
  const all = new Float64Array(runs.reduce((n, r) => n + r.latencies.length, 0));
  let at = 0;
  for (const r of runs) {
    all.set(r.latencies, at);
    at += r.latencies.length;
  }
  all.sort();
  const result: FloodResult = {
    okPerSecond: runs.reduce((s, r) => s + r.okPerSec, 0),
    non2xx: runs.reduce((s, r) => s + r.non2xx, 0),
    errors: runs.reduce((s, r) => s + r.errors, 0),
    p50: percentile(all, 0.5),
    p99: percentile(all, 0.99),
    machineBusyPct: runs.reduce((s, r) => s + r.cpu.machineBusyPct, 0) / runs.length,
    stealPct:
      after.total > before.total ? (100 * (after.steal - before.steal)) / (after.total - before.total) : 0,
    apiCores: runs.map((r) => r.cpu.server),
    dbCores: runs[0]?.cpu.db ?? 0,
    // 0 when the worker was killed during the flood (the kills case): its pid is gone.
    workerCores: elapsedS > 0 && workerCpu > 0 ? workerCpu / elapsedS : 0,
    // Each run's generator figure is this whole process's use.
    floodCores: runs[0]?.cpu.generator ?? 0,
  };
  process.send?.(result, () => process.exit(0));
});
