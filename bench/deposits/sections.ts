import { execFileSync } from "node:child_process";
import { availableParallelism, cpus, release } from "node:os";
import pg from "pg";
import { PG_BASE_URL } from "../shared/payintake.js";
import {
  noiseWarning,
  roundsTable,
  type Scenario,
  summarise,
  summaryChecks,
  summaryTable,
  TARGETS,
} from "./report.js";
import { CONNECTIONS, QUIET_WAIT_SECONDS, ROUNDS, SECONDS, WARMUP_SECONDS } from "./settings.js";

function sh(cmd: string, args: string[]): string {
  try {
    return execFileSync(cmd, args, { encoding: "utf8" }).trimEnd();
  } catch {
    return `(${cmd} not available)`;
  }
}

async function postgresVersion(): Promise<string> {
  const client = new pg.Client({ connectionString: PG_BASE_URL, connectionTimeoutMillis: 3_000 });
  try {
    await client.connect();
    const res = await client.query<{ server_version: string }>("SHOW server_version");
    return res.rows[0]?.server_version ?? "unknown";
  } catch (err) {
    return `unreachable (${(err as Error).message})`;
  } finally {
    await client.end().catch(() => {});
  }
}

/** The "machine" section: what the figures were measured on. */
export async function machineSection(date: string): Promise<string> {
  return [
    "## Machine",
    "",
    `Last refreshed by \`npm run bench\` on ${date}.`,
    "",
    `- CPU: ${availableParallelism()} × ${cpus()[0]?.model ?? "unknown"} (\`nproc\`: ${sh("nproc", [])})`,
    `- Kernel: Linux ${release()}; Node.js ${process.version}; PostgreSQL ${await postgresVersion()} (same machine)`,
    "- Memory (`free -m`):",
    "",
    "```",
    sh("free", ["-m"]),
    "```",
  ].join("\n");
}

function missedTargets(scenarios: Scenario[]): string[] {
  return summarise(scenarios).flatMap((s) =>
    summaryChecks(s)
      .filter((c) => !c.met)
      .map((c) => `${s.label}: ${c.text}`),
  );
}

/** The "deposits" section: the rounds' summary against the targets, each round, CPU, and how it was measured. */
export function depositsSection(date: string, version: string, scenarios: Scenario[]): string {
  const noise = noiseWarning(scenarios);
  const bareBound = scenarios.some((s) => s.key === "bare" && (s.result?.cpu.generator ?? 0) >= 0.9);
  const missed = missedTargets(scenarios);
  return [
    "## Signed direct deposits vs. the store floor",
    "",
    `Measured ${date} on ${version} by \`npm run bench\` (bench/deposits/run.ts); this section is rewritten by ` +
      "every run.",
    "",
    summaryTable(summarise(scenarios)),
    "",
    missed.length === 0 ? "All targets met." : `Missed targets: ${missed.join("; ")}.`,
    "",
    `Each of the ${ROUNDS} rounds in the order measured, with the CPU used during its measured seconds, in ` +
      "cores (1.00 = one core busy all the time; the machine " +
      `has ${availableParallelism()} cores, shared by the load generator, the server and PostgreSQL; ` +
      '"anything else" is whatever else ran on the machine meanwhile, which makes figures less reliable. ' +
      "The last two columns are CPU microseconds per 200 answer: what one answer costs, whatever the " +
      "speed of the load generator, which sets the bare endpoint's figure):",
    "",
    roundsTable(scenarios),
    ...(noise ? ["", noise] : []),
    "",
    "### What is measured and how",
    "",
    `- Load: autocannon (in the bench process), ${CONNECTIONS} connections, pipelining 1, ` +
      `${WARMUP_SECONDS} s warmup then ${SECONDS} s measured, against each server in turn, in ` +
      `${ROUNDS} rounds of bare, SQLite, PostgreSQL and the two store floors (a fresh server and store ` +
      "each time); before each " +
      `server the bench waits (up to ${QUIET_WAIT_SECONDS} s) for a second in which the machine is idle.`,
    "- Requests: `POST /paymentapi/v1/deposits` direct deposits (amount 150.00), each built in " +
      "autocannon's `setupRequest` with a unique nonce, reference and user_id, the current " +
      "X-Timestamp and a correct X-Signature (HMAC-SHA256 over METHOD, PATH, BODY, TIMESTAMP, NONCE).",
    "- Reference: a bare Fastify 5 server (bench/deposits/bare-server.ts, child process, no logger) with one POST " +
      "route on the same path that parses the JSON body and answers `{success:true}`; it gets the very " +
      "same signed requests, so the load generator does identical work in every run.",
    "- Store floors (references, no targets): bench/deposits/store-floor.ts, a Fastify server whose deposit route " +
      "makes only the store calls a payintake deposit makes, through payintake's store layer (nonce and " +
      "business facts in one call, the insert, then waiting until the write is durable), on a fresh " +
      "store of each kind; no authentication, validation, routing, sealing, metrics or logging. It is " +
      "the most a deposit handler on this store could reach on this machine: the gap from bare to the " +
      "floor is the store's, the gap from the floor to payintake is the rest of a deposit's work.",
    ...(bareBound
      ? [
          "- The load generator needs about one core for the bare endpoint's rate, so on this machine the " +
            "bare figure is what one generator core can drive through any server, below Fastify's own " +
            "ceiling; if anything, the ratios flatter payintake.",
        ]
      : []),
    "- payintake: `node dist/main/cli.js serve` as a child process, LOG_LEVEL=warn, fresh data directory, " +
      "random master key and admin token; in each round once on the embedded SQLite store and once on " +
      "PostgreSQL in a fresh schema (default pool size), the two taking turns at going first. " +
      "Provisioned via the admin API: one firm (rate limit " +
      "1,000,000/s, webhook http://127.0.0.1:9/cb) and 3 payment accounts.",
    "- Figures: req/s (mean) is autocannon's mean of per-second response counts; 200/s counts only " +
      "200 responses (successful deposits) over the measured duration; p50/p99 are exact percentiles of " +
      "the 200 responses' latencies (in the summary, over every round's responses together); non-2xx " +
      "and errors (connection errors, timeouts) must be 0. Ratio to the store floor = payintake's 200/s ÷ " +
      "the floor's 200/s on the same store in the same round; ratio to bare = 200/s ÷ the bare " +
      "endpoint's req/s in the same round (shown, not judged: on 2 cores it measures the load " +
      "generator as much as the server). The summary gives the median of the rounds' ratios, and the " +
      "targets are held to the floor's and to the worst round's p99.",
    `- Targets (issue 50): each store ≥ ${TARGETS.floorRatio.toFixed(2)}x its store floor, ` +
      `p99 < ${TARGETS.p99Ms} ms at ${CONNECTIONS} connections.`,
  ].join("\n");
}
