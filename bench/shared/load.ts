import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import autocannon from "autocannon";
import { signRequest } from "../../src/crypto/signature.js";

export const DEPOSIT_PATH = "/paymentapi/v1/deposits";

export interface Credentials {
  apiKey: string;
  secret: string;
}

/**
 * Signed direct deposits as a merchant sends them: every request gets its own nonce, reference and
 * user_id (so neither replay protection nor the one-pending-per-user rule rejects it), the current
 * timestamp, and an HMAC over exactly the bytes sent.
 */
export function signedDepositRequest(creds: Credentials): autocannon.Request {
  const run = randomBytes(6).toString("hex");
  let seq = 0;
  return {
    method: "POST",
    path: DEPOSIT_PATH,
    setupRequest(req) {
      seq++;
      const id = `${run}-${seq.toString(36)}`;
      const body = Buffer.from(
        JSON.stringify({
          amount: "150.00",
          bank_code: "AKBANK",
          first_name: "Ayşe",
          last_name: "Yılmaz",
          username: "ayse.yilmaz@example.com",
          user_id: `u-${id}`,
          reference: `DEP-${id}`,
          national_id: "12345678901",
        }),
        "utf8",
      );
      const timestamp = String(Math.floor(Date.now() / 1000));
      const nonce = `n${run}${seq.toString(36)}`;
      const signature = signRequest(creds.secret, {
        method: "POST",
        path: DEPOSIT_PATH,
        body,
        timestamp,
        nonce,
      });
      req.method = "POST";
      req.path = DEPOSIT_PATH;
      req.body = body;
      req.headers = {
        ...req.headers,
        "content-type": "application/json",
        "x-api-key": creds.apiKey,
        "x-signature": signature,
        "x-timestamp": timestamp,
        "x-nonce": nonce,
      };
      return req;
    },
  };
}

// --- CPU accounting -------------------------------------------------------------------------------

const CLK_TCK = 100;

/** CPU seconds (user + system) a process has used so far; 0 when it is gone or unreadable. */
export function processCpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / CLK_TCK;
  } catch {
    return 0;
  }
}

/** CPU seconds of every process named postgres (server and backends); 0 without procfs. */
function postgresCpuSeconds(): number {
  let total = 0;
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return 0;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, "utf8").startsWith("postgres"))
        total += processCpuSeconds(Number(entry));
    } catch {
      // the process ended while we looked
    }
  }
  return total;
}

/** Busy and total jiffies of the whole machine (all cores). */
function machineJiffies(): { busy: number; total: number } {
  try {
    const line = readFileSync("/proc/stat", "utf8").split("\n", 1)[0] ?? "";
    const values = line.trim().split(/\s+/).slice(1).map(Number);
    const total = values.reduce((a, b) => a + b, 0);
    const idle = (values[3] ?? 0) + (values[4] ?? 0);
    return { busy: total - idle, total };
  } catch {
    return { busy: 0, total: 0 };
  }
}

/**
 * Waits (up to `maxSeconds`) for a second in which the whole machine used less than `maxCores`:
 * other work on a 2-core machine halves the figures. Returns whether it got one.
 */
export async function waitForQuiet(maxSeconds: number, maxCores = 0.25): Promise<boolean> {
  const deadline = performance.now() + maxSeconds * 1000;
  let before = machineJiffies();
  while (performance.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const after = machineJiffies();
    const total = after.total - before.total;
    const busyCores = total > 0 ? ((after.busy - before.busy) / total) * availableParallelism() : 0;
    if (total > 0 && busyCores < maxCores) return true;
    before = after;
  }
  return false;
}

interface CpuSnapshot {
  at: number;
  generator: NodeJS.CpuUsage;
  server: number;
  db: number;
  machine: { busy: number; total: number };
}

function cpuSnapshot(serverPid: number, withDb: boolean): CpuSnapshot {
  return {
    at: performance.now(),
    generator: process.cpuUsage(),
    server: processCpuSeconds(serverPid),
    db: withDb ? postgresCpuSeconds() : 0,
    machine: machineJiffies(),
  };
}

// --- the run --------------------------------------------------------------------------------------

export interface LoadOptions {
  url: string;
  request: autocannon.Request;
  connections: number;
  seconds: number;
  warmupSeconds: number;
  /** The server process, for its CPU share. */
  serverPid: number;
  /** Also account the CPU of local postgres processes. */
  measureDb: boolean;
}

export interface LoadResult {
  durationS: number;
  /** autocannon's mean of per-second response counts (all statuses). */
  reqPerSecMean: number;
  /** 200 responses per second of the measured run. */
  okPerSec: number;
  responses: number;
  ok200: number;
  non2xx: number;
  /** Connection errors and timeouts (autocannon counts a timeout as an error too). */
  errors: number;
  timeouts: number;
  statusCounts: Record<string, number>;
  /** Latency percentiles of the 200 responses, ms, from exact per-response timings. */
  p50: number;
  p99: number;
  max: number;
  /** Every 200 response's latency in ms, sorted (to pool the percentiles of several runs). */
  latencies: Float64Array;
  /** Up to three bodies of non-200 responses, with their status. */
  errorSamples: string[];
  /** CPU use over the measured run, in cores (1.0 = one core busy all the time). */
  cpu: { generator: number; server: number; db: number | null; machineBusyPct: number };
}

/** Nearest-rank percentile of ascending values; `q` is a fraction (0.99 for p99). */
export function percentile(sorted: ArrayLike<number>, q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[index] ?? Number.NaN;
}

/** One autocannon run (with warmup); only the measured part counts in the result. */
export async function drive(opts: LoadOptions): Promise<LoadResult> {
  const errorSamples: string[] = [];
  let latencies = new Float64Array(1 << 16);
  let count = 0;
  let measuring = false;
  let start: CpuSnapshot | undefined;

  const request: autocannon.Request = {
    ...opts.request,
    onResponse(status, body) {
      if (status !== 200 && errorSamples.length < 3) errorSamples.push(`${status} ${body.slice(0, 300)}`);
    },
  };
  const instance = autocannon({
    url: opts.url,
    connections: opts.connections,
    duration: opts.seconds,
    pipelining: 1,
    timeout: 10,
    requests: [request],
    ...(opts.warmupSeconds > 0
      ? { warmup: { connections: opts.connections, duration: opts.warmupSeconds } }
      : {}),
  });
  instance.on("start", () => {
    measuring = true;
    start = cpuSnapshot(opts.serverPid, opts.measureDb);
  });
  instance.on("response", (_client: unknown, status: number, _bytes: number, ms: number) => {
    if (!measuring || status !== 200) return;
    if (count === latencies.length) {
      const bigger = new Float64Array(latencies.length * 2);
      bigger.set(latencies);
      latencies = bigger;
    }
    latencies[count++] = ms;
  });
  const result = await instance;
  const end = cpuSnapshot(opts.serverPid, opts.measureDb);
  const begin = start ?? end;

  const sorted = latencies.subarray(0, count).sort();
  const statusCounts: Record<string, number> = {};
  for (const [code, stats] of Object.entries(result.statusCodeStats)) statusCounts[code] = stats.count;
  const ok200 = statusCounts["200"] ?? 0;
  const responses = Object.values(statusCounts).reduce((a, b) => a + b, 0);
  const wallS = (end.at - begin.at) / 1000 || 1;
  const genS =
    (end.generator.user - begin.generator.user + end.generator.system - begin.generator.system) / 1e6;
  const machineTotal = end.machine.total - begin.machine.total;
  return {
    durationS: result.duration,
    reqPerSecMean: result.requests.average,
    okPerSec: ok200 / result.duration,
    responses,
    ok200,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    statusCounts,
    p50: percentile(sorted, 0.5),
    p99: percentile(sorted, 0.99),
    max: count > 0 ? (sorted[count - 1] ?? Number.NaN) : Number.NaN,
    latencies: sorted,
    errorSamples,
    cpu: {
      generator: genS / wallS,
      server: (end.server - begin.server) / wallS,
      db: opts.measureDb ? (end.db - begin.db) / wallS : null,
      machineBusyPct: machineTotal > 0 ? (100 * (end.machine.busy - begin.machine.busy)) / machineTotal : 0,
    },
  };
}
