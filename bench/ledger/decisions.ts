/**
 * Decisions per second with the ledger against a tree without it (issue 48's target: ≥ 0.9 ×):
 * BENCH_AB_BASE is another checkout of payintake, built with `npm run build`. Each measure starts a
 * server of one tree on a fresh store, makes DECISIONS pending deposits for one firm (signed, as a
 * merchant would), then approves them all through the admin API, OPERATORS at once, and counts
 * approvals per second. On PostgreSQL a second measure splits the approvals over two instances of
 * the tree on one store. Rounds interleave the trees (and alternate which goes first). The server's
 * callbacks go to a port nobody listens on: their sending is the worker's, in the background.
 *
 * Run: `BENCH_AB_BASE=/path/to/base node --import tsx bench/ledger/decisions.ts`; BENCH_ROUNDS (3),
 * LEDGER_DECISIONS (2000), LEDGER_OPERATORS (16), BENCH_STORES (sqlite,postgres). Prints a table.
 */
import { resolve } from "node:path";
import { adminHeaders, call, depositJson, pool, signedCall } from "../shared/client.js";
import type { Credentials } from "../shared/load.js";
import {
  type PayintakeInstance,
  provision,
  type StoreKind,
  startPayintake,
  startPeer,
} from "../shared/payintake.js";
import { ROOT, shortCommit } from "../shared/tree.js";

const BASE = process.env.BENCH_AB_BASE;
if (!BASE) throw new Error("BENCH_AB_BASE: the checkout to compare with (built with npm run build)");
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const DECISIONS = Number(process.env.LEDGER_DECISIONS ?? 2000);
const OPERATORS = Number(process.env.LEDGER_OPERATORS ?? 16);
const STORES = (process.env.BENCH_STORES ?? "sqlite,postgres").split(",") as StoreKind[];
const log = (line: string) => process.stdout.write(`[ledger-decisions] ${line}\n`);
const trees = [
  { name: `without the ledger (${shortCommit(BASE)})`, cwd: resolve(BASE) },
  { name: `with the ledger (${shortCommit(ROOT)})`, cwd: ROOT },
];

/** The ids of `count` pending deposits made for the firm. */
async function pendingDeposits(url: string, creds: Credentials, run: string, count: number) {
  const indexes = Array.from({ length: count }, (_v, i) => i);
  await pool(indexes, 16, async (i) => {
    const res = await signedCall(url, creds, "POST", "/paymentapi/v1/deposits", depositJson(`${run}-${i}`));
    if (res.status !== 200) throw new Error(`deposit answered ${res.status}`);
  });
  const ids: number[] = new Array(count).fill(0);
  await pool(indexes, 16, async (i) => {
    const res = await signedCall(url, creds, "GET", `/paymentapi/v1/transactions/by-reference/R-${run}-${i}`);
    ids[i] = res.json.data.id as number;
  });
  return ids;
}

/** Approvals per second, the ids dealt round the instances' URLs. */
async function approveAll(urls: string[], token: string, ids: number[]): Promise<number> {
  const headers = adminHeaders(token);
  const started = performance.now();
  let n = 0;
  await pool(ids, OPERATORS, async (id) => {
    const url = urls[n++ % urls.length] as string;
    const res = await call(
      url,
      "POST",
      `/admin/v1/transactions/${id}/approve`,
      headers,
      '{"actor":"operator:bench"}',
    );
    if (res.status !== 200)
      throw new Error(`approve ${id} answered ${res.status}: ${JSON.stringify(res.json)}`);
  });
  return (ids.length * 1000) / (performance.now() - started);
}

async function measure(kind: StoreKind, cwd: string, instances: 1 | 2, run: string): Promise<number> {
  const first = await startPayintake(kind, { cwd, env: { PAYINTAKE_CALLBACK_POLL_MS: "1000" } });
  const servers: PayintakeInstance[] = [first];
  try {
    if (instances === 2) servers.push(await startPeer(first, cwd));
    const creds = await provision(first);
    const ids = await pendingDeposits(first.child.url, creds, run, DECISIONS);
    return await approveAll(
      servers.map((s) => s.child.url),
      first.adminToken,
      ids,
    );
  } finally {
    for (const s of servers.reverse()) await s.cleanup();
  }
}

type Config = { kind: StoreKind; instances: 1 | 2 };
const configs: Config[] = STORES.flatMap((kind): Config[] =>
  kind === "postgres"
    ? [
        { kind, instances: 1 },
        { kind, instances: 2 },
      ]
    : [{ kind, instances: 1 }],
);
const figures = new Map<string, number[]>();
for (let round = 0; round < ROUNDS; round++) {
  const order = round % 2 === 0 ? trees : [...trees].reverse();
  for (const c of configs)
    for (const tree of order) {
      const rate = await measure(
        c.kind,
        tree.cwd,
        c.instances,
        `r${round}-${c.kind}-${c.instances}-${tree.cwd.length}`,
      );
      const key = `${c.kind}|${c.instances}|${tree.name}`;
      figures.set(key, [...(figures.get(key) ?? []), rate]);
      log(
        `round ${round + 1}: ${c.kind}, ${c.instances} instance(s), ${tree.name}: ${rate.toFixed(0)} decisions/s`,
      );
    }
}

const median = (v: number[]) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)] ?? Number.NaN;
const lines = [
  `${ROUNDS} interleaved rounds, ${DECISIONS} approvals of one firm's deposits per measure, ${OPERATORS} at once through the admin API; medians (each round's figure):`,
  "",
  "| Store | Instances | Without the ledger | With the ledger | Ratio |",
  "|---|---:|---:|---:|---:|",
];
for (const c of configs) {
  const [without, withIt] = trees.map((t) => figures.get(`${c.kind}|${c.instances}|${t.name}`) ?? []) as [
    number[],
    number[],
  ];
  const r = (v: number[]) => `${median(v).toFixed(0)} (${v.map((x) => x.toFixed(0)).join(" · ")})`;
  lines.push(
    `| ${c.kind} | ${c.instances} | ${r(without)} | ${r(withIt)} | ${(median(withIt) / median(without)).toFixed(2)} |`,
  );
}
process.stdout.write(`\n${lines.join("\n")}\n`);
