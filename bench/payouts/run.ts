/**
 * `npm run bench:payouts` (issue 47, "Done when"): payouts through the real server on each store.
 * - batch: PAYOUTS_BATCH (10,000) waiting withdrawals to a batch and its pain.001.001.09 file
 *   (bench/payouts/batch.ts);
 * - statement: a camt.053 of PAYOUTS_STATEMENT_LINES (100,000) entries paying
 *   PAYOUTS_STATEMENT_PAYOUTS (10,000) sent payouts (bench/payouts/statement.ts);
 * - channel: a payout channel's release to the merchant's callback (bench/payouts/channel.ts).
 * PAYOUTS_ONLY=batch|statement|channel runs one case; PAYOUTS_STORES narrows the stores. Each case's
 * figures of each store are kept in .bench-tmp/payouts.json, so a case run alone replaces only its
 * own; the "payouts" section of docs/BENCHMARKS.md is written from that file once every case has
 * figures on both stores.
 */

import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BENCHMARKS_DOC, writeDocSections } from "../shared/doc-sections.js";
import type { StoreKind } from "../shared/payintake.js";
import { codeVersion, ROOT } from "../shared/tree.js";
import { type BatchRun, batchRun } from "./batch.js";
import { type ChannelRun, channelRun } from "./channel.js";
import { log } from "./scene.js";
import { type StatementRun, statementRun } from "./statement.js";

const CASES = ["batch", "statement", "channel"] as const;
type Case = (typeof CASES)[number];
const ONLY = process.env.PAYOUTS_ONLY as Case | undefined;
if (ONLY !== undefined && !CASES.includes(ONLY)) throw new Error(`PAYOUTS_ONLY: one of ${CASES.join(", ")}`);
const STORES = (process.env.PAYOUTS_STORES ?? "sqlite,postgres").split(",") as StoreKind[];
const BATCH = Number(process.env.PAYOUTS_BATCH ?? 10_000);
const LINES = Number(process.env.PAYOUTS_STATEMENT_LINES ?? 100_000);
const STATEMENT_PAYOUTS = Number(process.env.PAYOUTS_STATEMENT_PAYOUTS ?? 10_000);
const SINGLES = Number(process.env.PAYOUTS_CHANNEL_SINGLES ?? 200);
const CHANNEL_BATCH = Number(process.env.PAYOUTS_CHANNEL_BATCH ?? 300);
const KEPT = join(ROOT, ".bench-tmp", "payouts.json");

interface Measured<T> {
  at: string;
  version: string;
  run: T;
}
type Kept = {
  batch: Partial<Record<StoreKind, Measured<BatchRun>>>;
  statement: Partial<Record<StoreKind, Measured<StatementRun>>>;
  channel: Partial<Record<StoreKind, Measured<ChannelRun>>>;
};

function readKept(): Kept {
  return existsSync(KEPT)
    ? (JSON.parse(readFileSync(KEPT, "utf8")) as Kept)
    : { batch: {}, statement: {}, channel: {} };
}

const ok = (held: boolean, target: string) => `${held ? "ok" : "**MISSED**"} (${target})`;
const s = (x: number) => `${x.toFixed(2)} s`;
const mb = (x: number) => `${x.toFixed(0)} MB`;
const ms = (x: number) => `${x.toFixed(0)} ms`;
const when = (m: { at: string; version: string }) => `${m.at}, ${m.version}`;

function batchTable(runs: Measured<BatchRun>[]): string[] {
  return [
    "| Store | Measured | Payouts | Batch made | File (first byte / last) | Together | File size | Resting RSS | Peak above it: batch / file | Targets | Load |",
    "|---|---|---:|---:|---:|---:|---:|---:|---:|---|---:|",
    ...runs.map(({ run: r, ...m }) => {
      const together = r.createSeconds + r.fileSeconds;
      const peak = Math.max(r.createPeakAboveMb, r.filePeakAboveMb);
      return `| ${r.kind} | ${when(m)} | ${r.payouts.toLocaleString("en-US")} | ${s(r.createSeconds)} | ${s(r.fileFirstByteSeconds)} / ${s(r.fileSeconds)} | ${s(together)} | ${(r.fileBytes / 1e6).toFixed(1)} MB | ${mb(r.restingMb)} | ${mb(r.createPeakAboveMb)} / ${mb(r.filePeakAboveMb)} | ${ok(together < 5, "< 5 s")}; ${ok(peak < 50, "< 50 MB")} | ${r.load.toFixed(1)} |`;
    }),
  ];
}

function statementTable(runs: Measured<StatementRun>[]): string[] {
  return [
    "| Store | Measured | Lines | File | Import (upload to answer) | Peak above resting | Payouts paid / suggested | Withdrawals approved | Still pending | Approved callbacks (all in) | Target | Load |",
    "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|",
    ...runs.map(({ run: r, ...m }) => {
      const all = r.paidAttempts === r.payouts && r.pendingLeft === 0 && r.approvedCallbacks === r.payouts;
      return `| ${r.kind} | ${when(m)} | ${r.lines.toLocaleString("en-US")} | ${(r.bytes / 1e6).toFixed(1)} MB | ${r.importSeconds.toFixed(1)} s | ${mb(r.peakAboveMb)} | ${r.answer.payouts_paid} / ${r.answer.payouts_suggested} | ${r.paidAttempts.toLocaleString("en-US")} of ${r.payouts.toLocaleString("en-US")} | ${r.pendingLeft} | ${r.approvedCallbacks.toLocaleString("en-US")} (${r.callbacksSeconds.toFixed(1)} s after the upload began) | ${ok(r.importSeconds < 60 && all, "< 60 s, every one approved")} | ${r.load.toFixed(1)} |`;
    }),
  ];
}

function channelTable(runs: Measured<ChannelRun>[]): string[] {
  const row = (
    m: Measured<ChannelRun>,
    shape: string,
    l: { samples: number; p50Ms: number; p99Ms: number; maxMs: number },
  ) =>
    `| ${m.run.kind} | ${when(m)} | ${shape} | ${l.samples} | ${ms(l.p50Ms)} | ${ms(l.p99Ms)} | ${ms(l.maxMs)} | ${ok(l.p99Ms < 2_000, "p99 < 2 s")} | ${m.run.load.toFixed(1)} |`;
  return [
    "| Store | Measured | Shape | Payouts | p50 | p99 | max | Target | Load |",
    "|---|---|---|---:|---:|---:|---:|---|---:|",
    ...runs.flatMap((m) => [
      row(m, "batches of one, one after another", m.run.singles),
      row(m, `one batch released at once (answered in ${ms(m.run.batch.releaseMs)})`, m.run.batch),
    ]),
  ];
}

function section(kept: Kept): string {
  const of = <T>(byStore: Partial<Record<StoreKind, Measured<T>>>) =>
    (["sqlite", "postgres"] as const).flatMap((k) => (byStore[k] ? [byStore[k] as Measured<T>] : []));
  return [
    "## Payouts",
    "",
    "By `npm run bench:payouts` (bench/payouts/), each case on its own fresh store and server; Load is the machine's 1-minute load average as the case began (2 cores).",
    "",
    `A batch of ${BATCH.toLocaleString("en-US")} waiting withdrawals (made through the merchant API, each its own payee and IBAN) to a pain.001.001.09 file: \`POST /admin/v1/payouts/batches\`, then \`GET …/batches/:id/file\` read to its last byte. The server's resident size after a rest, and its peak (VmHWM, reset before each step) above it:`,
    "",
    ...batchTable(of(kept.batch)),
    "",
    `A camt.053 of ${LINES.toLocaleString("en-US")} entries uploaded as a stream: ${STATEMENT_PAYOUTS.toLocaleString("en-US")} are the debits of a batch marked sent, each naming its payment id as \`EndToEndId\` with the payee's name and IBAN; the others strangers' credits and bank fees. Then each withdrawal's stage and status, and the callbacks at the merchant's receiver:`,
    "",
    ...statementTable(of(kept.statement)),
    "",
    "A payout channel's release to the merchant's callback at a local receiver, the simulator answering `paid` at once and the account's `channel_final_approves` on:",
    "",
    ...channelTable(of(kept.channel)),
  ].join("\n");
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "payintake-payouts-"));
  const at = new Date().toISOString().replace(/\.\d+Z$/, "Z");
  const version = codeVersion(ROOT);
  try {
    const kept = readKept();
    const keep = <T>(name: Case, kind: StoreKind, run: T) => {
      (kept[name] as Partial<Record<StoreKind, Measured<T>>>)[kind] = { at, version, run };
      mkdirSync(join(ROOT, ".bench-tmp"), { recursive: true });
      writeFileSync(KEPT, `${JSON.stringify(kept, null, 2)}\n`);
    };
    for (const kind of STORES) {
      if (!ONLY || ONLY === "batch") keep("batch", kind, await batchRun(kind, BATCH));
      if (!ONLY || ONLY === "statement")
        keep("statement", kind, await statementRun(kind, dir, { lines: LINES, payouts: STATEMENT_PAYOUTS }));
      if (!ONLY || ONLY === "channel")
        keep("channel", kind, await channelRun(kind, { singles: SINGLES, batch: CHANNEL_BATCH }));
    }
    const body = section(kept);
    process.stdout.write(`\n${body}\n`);
    const complete = CASES.every((c) => kept[c].sqlite && kept[c].postgres);
    if (complete) writeDocSections(BENCHMARKS_DOC, [{ name: "payouts", body }]);
    else log("not every case has figures on both stores yet: docs/BENCHMARKS.md left as it is");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  log(`failed: ${(err as Error).stack ?? String(err)}`);
  process.exitCode = 1;
});
