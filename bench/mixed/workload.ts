import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { turkishIbanFor } from "../../src/domain/iban.js";
import { type Child, childEnv, startChild } from "../shared/children.js";
import { adminHeaders, call, depositJson, signedCall } from "../shared/client.js";
import { type Credentials, percentile } from "../shared/load.js";
import { createSchema } from "../shared/payintake.js";

/**
 * A sustained mixed workload on PostgreSQL, as a merchant and its operators make it together:
 * deposits, withdrawals, queries by reference, and operators' decisions whose callbacks go to a
 * local receiver; with one and with two `api` instances (and one `worker`) on one database. Reports
 * throughput, latency percentiles per operation and overall, errors, the servers' peak memory, and
 * whether every decision's callback arrived.
 */
export interface MixedResult {
  apiInstances: number;
  seconds: number;
  operations: number;
  perSecond: number;
  errors: number;
  latency: { p50: number; p99: number; p999: number };
  byOperation: Record<string, { count: number; p50: number; p99: number }>;
  peakRssMb: number[];
  callbacks: { decided: number; delivered: number; drainSeconds: number };
}

const WEIGHTS: [string, number][] = [
  ["deposit", 0.5],
  ["withdrawal", 0.1],
  ["query", 0.25],
  ["decision", 0.15],
];

/** The operation whose share of the mix covers `r` (0 ≤ r < 1). */
function pick(r: number): string {
  let left = r;
  for (const [op, weight] of WEIGHTS) {
    left -= weight;
    if (left < 0) return op;
  }
  return "deposit";
}

function withdrawalJson(id: string): string {
  return JSON.stringify({
    amount: "250.00",
    bank_code: "GARANTI",
    first_name: "Mehmet",
    last_name: "Demir",
    username: "mehmet",
    user_id: `w-${id}`,
    reference: `W-${id}`,
    iban: "TR330006100519786457841326",
  });
}

async function rssMb(url: string): Promise<number> {
  const text = await fetch(`${url}/metrics`)
    .then((r) => r.text())
    .catch(() => "");
  const m = /^payintake_process_resident_memory_bytes (\S+)$/m.exec(text);
  return m ? Number(m[1]) / 1024 / 1024 : Number.NaN;
}

export async function benchMixed(opts: {
  cwd: string;
  apiInstances: number;
  seconds: number;
  concurrency: number;
}): Promise<MixedResult> {
  const children: Child[] = [];
  const schema = await createSchema();
  const dataDir = mkdtempSync(join(tmpdir(), "payintake-bench-mixed-"));
  const adminToken = randomBytes(24).toString("hex");
  const arrived = new Set<number>();
  const receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      try {
        arrived.add(JSON.parse(Buffer.concat(chunks).toString("utf8")).id as number);
      } catch {}
      res.writeHead(200).end("ok");
    });
  });
  await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
  try {
    const env = {
      HOST: "127.0.0.1",
      PORT: "0",
      LOG_LEVEL: "warn",
      DATABASE_URL: schema.url,
      PAYINTAKE_DATA_DIR: dataDir,
      PAYINTAKE_MASTER_KEY: randomBytes(32).toString("hex"),
      PAYINTAKE_ADMIN_TOKEN: adminToken,
      PAYINTAKE_ALLOW_PRIVATE_CALLBACKS: "true",
      PAYINTAKE_CALLBACK_POLL_MS: "200",
    };
    children.push(
      await startChild("worker", ["dist/main/cli.js", "serve", "--role", "worker"], childEnv(env), {
        cwd: opts.cwd,
      }),
    );
    for (let i = 0; i < opts.apiInstances; i++) {
      children.push(
        await startChild(`api-${i}`, ["dist/main/cli.js", "serve", "--role", "api"], childEnv(env), {
          cwd: opts.cwd,
        }),
      );
    }
    const apis = children.slice(1).map((c) => c.url);
    const headers = adminHeaders(adminToken);
    const firm = (
      await call(
        apis[0] as string,
        "POST",
        "/admin/v1/firms",
        headers,
        JSON.stringify({
          name: "Mixed",
          webhook_url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/cb`,
          rate_limit_per_second: 1_000_000,
          max_pending_count: null,
          max_pending_amount: null,
        }),
      )
    ).json;
    for (let i = 0; i < 3; i++) {
      await call(
        apis[0] as string,
        "POST",
        "/admin/v1/accounts",
        headers,
        JSON.stringify({
          bank_name: "Bank",
          holder_name: "Holder",
          iban: turkishIbanFor(`000610051978645784133${i}`),
        }),
      );
    }
    const creds: Credentials = { apiKey: firm.api_key, secret: firm.secret_key };

    const latencies = new Map<string, number[]>(WEIGHTS.map(([op]) => [op, []]));
    const references: string[] = [];
    const pending: number[] = [];
    const decided = new Set<number>();
    let errors = 0;
    let n = 0;
    const peak = children.map(() => 0);
    const sampler = setInterval(() => {
      children.forEach((c, i) => {
        void rssMb(c.url).then((mb) => {
          if (mb > (peak[i] ?? 0)) peak[i] = mb;
        });
      });
    }, 2_000);
    const end = Date.now() + opts.seconds * 1_000;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: opts.concurrency }, async (_, loop) => {
        while (Date.now() < end) {
          const url = apis[(n++ + loop) % apis.length] as string;
          const op = pick(Math.random());
          const id = `${loop}-${n}-${randomBytes(3).toString("hex")}`;
          const t0 = performance.now();
          let ok = true;
          if (op === "deposit") {
            const res = await signedCall(url, creds, "POST", "/paymentapi/v1/deposits", depositJson(id));
            ok = res.status === 200;
            if (ok) references.push(`R-${id}`);
          } else if (op === "withdrawal") {
            const res = await signedCall(
              url,
              creds,
              "POST",
              "/paymentapi/v1/withdrawals",
              withdrawalJson(id),
            );
            ok = res.status === 200;
          } else if (op === "query") {
            const reference = references[Math.floor(Math.random() * references.length)] ?? "R-none";
            const res = await signedCall(
              url,
              creds,
              "GET",
              `/paymentapi/v1/transactions/by-reference/${reference}`,
            );
            ok = res.status === 200 || (res.status === 404 && reference === "R-none");
            if (ok && res.json?.data?.status === "pending") pending.push(res.json.data.id as number);
          } else {
            const txId = pending.pop();
            if (txId === undefined || decided.has(txId)) continue;
            decided.add(txId);
            const kind = Math.random() < 0.8 ? "approve" : "reject";
            const res = await call(
              url,
              "POST",
              `/admin/v1/transactions/${txId}/${kind}`,
              headers,
              JSON.stringify({ actor: "bench" }),
            );
            ok = res.status === 200 || res.status === 409;
            if (res.status === 409) decided.delete(txId);
          }
          const ms = performance.now() - t0;
          if (!ok) errors++;
          latencies.get(op)?.push(ms);
        }
      }),
    );
    const seconds = (performance.now() - started) / 1_000;
    // Every decision's callback must arrive; time how long after the load the last one did.
    const drainStart = performance.now();
    while ([...decided].some((id) => !arrived.has(id)) && performance.now() - drainStart < 60_000) {
      await new Promise((r) => setTimeout(r, 100));
    }
    const drainSeconds = (performance.now() - drainStart) / 1_000;
    clearInterval(sampler);
    for (let i = 0; i < children.length; i++) {
      const mb = await rssMb((children[i] as Child).url);
      if (mb > (peak[i] ?? 0)) peak[i] = mb;
    }
    const all = [...latencies.values()].flat().sort((a, b) => a - b);
    const byOperation: MixedResult["byOperation"] = {};
    for (const [op, list] of latencies) {
      const sorted = [...list].sort((a, b) => a - b);
      byOperation[op] = { count: sorted.length, p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99) };
    }
    return {
      apiInstances: opts.apiInstances,
      seconds,
      operations: all.length,
      perSecond: all.length / seconds,
      errors,
      latency: { p50: percentile(all, 0.5), p99: percentile(all, 0.99), p999: percentile(all, 0.999) },
      byOperation,
      peakRssMb: peak,
      callbacks: {
        decided: decided.size,
        delivered: [...decided].filter((id) => arrived.has(id)).length,
        drainSeconds,
      },
    };
  } finally {
    for (const c of children.reverse()) await c.stop().catch(() => {});
    await schema.drop().catch(() => {});
    rmSync(dataDir, { recursive: true, force: true });
    await new Promise<void>((r) => receiver.close(() => r()));
  }
}

export function mixedSection(date: string, version: string, runs: MixedResult[]): string {
  const f = (x: number) => (Number.isFinite(x) ? x.toFixed(1) : "—");
  const rows = runs.map(
    (r) =>
      `| ${r.apiInstances} api + 1 worker | ${Math.round(r.perSecond).toLocaleString("en-US")} | ${f(r.latency.p50)} | ${f(r.latency.p99)} | ${f(r.latency.p999)} | ${r.errors} | ${r.peakRssMb.map((m) => Math.round(m)).join(" / ")} | ${r.callbacks.delivered} / ${r.callbacks.decided} (${f(r.callbacks.drainSeconds)} s after) |`,
  );
  const ops = runs.flatMap((r) =>
    Object.entries(r.byOperation).map(
      ([op, x]) =>
        `| ${r.apiInstances} api | ${op} | ${x.count.toLocaleString("en-US")} | ${f(x.p50)} | ${f(x.p99)} |`,
    ),
  );
  return [
    "## Sustained mixed workload on PostgreSQL",
    "",
    `Measured ${date} on ${version} by \`npm run bench\` (bench/mixed/workload.ts); this section is rewritten by every run.`,
    `${Math.round(runs[0]?.seconds ?? 0)} s per run, 50 % deposits, 10 % withdrawals, 25 % queries by reference, 15 % operators' decisions (callbacks to a local receiver), from concurrent clients spread round-robin over the api instances; one worker instance sends the callbacks. The load generator, the servers and PostgreSQL share this machine's cores.`,
    "",
    "| Instances | ops/s | p50 ms | p99 ms | p99.9 ms | errors | peak RSS MB (worker / api…) | callbacks delivered |",
    "|---|---|---|---|---|---|---|---|",
    ...rows,
    "",
    "| Run | Operation | count | p50 ms | p99 ms |",
    "|---|---|---|---|---|",
    ...ops,
  ].join("\n");
}
