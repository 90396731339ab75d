/**
 * `npm run bench:reconcile` (issue 34): how a large bank statement goes through the real server,
 * and how right the matching rule is.
 * - Import: a camt.053 of RECONCILE_LINES entries (default 100,000) for one account, uploaded to
 *   `POST /admin/v1/accounts/{id}/statements` as a stream: RECONCILE_DEPOSITS of them (default
 *   2,000) pay deposits made through the merchant API (half by the payer's name, half by the code),
 *   the rest are strangers' payments and debits. Timed from the first byte sent to the answer;
 *   the server's memory as its resident peak (VmHWM, reset just before) above its resident size.
 * - Matching: the generated statements of test/support/statements.ts (the issue's fixed mix, 50
 *   seeds of 2,000 lines), per hazard.
 * - Hostile statements: worst-case files of about 200 MB while merchants deposit
 *   (bench/reconcile/hostile.ts).
 * Writes the "reconciliation" and "reconciliation-hostile" sections of docs/BENCHMARKS.md when run
 * on both stores.
 */

import { createReadStream, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { request } from "undici";
import { emptyFigures, type Figures, type Mistake, runDay } from "../../test/support/reconcile-run.js";
import { camtFile, type Entry } from "../../test/support/statement-files.js";
import { generateDay } from "../../test/support/statements.js";
import { pool, signedCall } from "../shared/client.js";
import { BENCHMARKS_DOC, writeDocSections } from "../shared/doc-sections.js";
import { createKeptStore, startServer } from "../shared/kept-store.js";
import { FIRST_NAMES, LAST_NAMES } from "../shared/names.js";
import type { StoreKind } from "../shared/payintake.js";
import { codeVersion, ROOT } from "../shared/tree.js";
import { type FeedRun, feedRun } from "./feed.js";
import { type HostileRun, hostileRuns, hostileTable } from "./hostile.js";
import { STATEMENT_IBAN, statementScene } from "./scene.js";

const LINES = Number(process.env.RECONCILE_LINES ?? 100_000);
const DEPOSITS = Number(process.env.RECONCILE_DEPOSITS ?? 2_000);
const STORES = (process.env.RECONCILE_STORES ?? "sqlite,postgres").split(",") as StoreKind[];
const FEED_SAMPLES = Number(process.env.RECONCILE_FEED_SAMPLES ?? 500);
/**
 * RECONCILE_ONLY=feed measures the live feed alone (minutes, not a quarter of an hour);
 * RECONCILE_ONLY=hostile the hostile statements alone (bench/reconcile/hostile.ts), written to
 * their own section.
 */
const ONLY = process.env.RECONCILE_ONLY;
const IBAN = STATEMENT_IBAN;
const log = (line: string) => process.stdout.write(`[reconcile] ${line}\n`);

interface ImportRun {
  kind: StoreKind;
  bytes: number;
  seconds: number;
  rssBeforeMb: number;
  peakAboveMb: number;
  answer: Record<string, unknown>;
}

function memoryKb(pid: number, field: "VmRSS" | "VmHWM"): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(new RegExp(`^${field}:\\s+(\\d+) kB$`, "m").exec(status)?.[1] ?? Number.NaN);
}

async function makeDeposits(url: string, creds: { apiKey: string; secret: string }) {
  const made: { id: number; first: string; last: string; amount: string; at: number; code: string }[] = [];
  await pool(
    Array.from({ length: DEPOSITS }, (_, i) => i),
    8,
    async (i) => {
      const first = FIRST_NAMES[i % FIRST_NAMES.length] as string;
      const last = LAST_NAMES[Math.floor(i / FIRST_NAMES.length) % LAST_NAMES.length] as string;
      // Every amount its own: the import's own hazards are the generator's to measure.
      const amount = `${100 + i}.${String(i % 100).padStart(2, "0")}`;
      const body = JSON.stringify({
        amount,
        bank_code: "AKBANK",
        first_name: first,
        last_name: last,
        username: `payer${i}`,
        user_id: `u-${i}`,
        reference: `REC-${i}`,
      });
      const r = await signedCall(url, creds, "POST", "/paymentapi/v1/deposits", body);
      if (r.status !== 200) throw new Error(`deposit ${i}: ${r.status} ${JSON.stringify(r.json)}`);
      // The direct answer carries the account, not the id: the query by reference gives it.
      const q = await signedCall(url, creds, "GET", `/paymentapi/v1/transactions/by-reference/REC-${i}`);
      made.push({ id: q.json.data.id, first, last, amount, at: Date.now(), code: q.json.data.payment_code });
    },
  );
  return made;
}

function statementEntries(deposits: Awaited<ReturnType<typeof makeDeposits>>): Entry[] {
  const at = Date.now() + 5_000;
  const entries: Entry[] = deposits.map((d, i) =>
    i % 2 === 0
      ? { amount: d.amount, name: `${d.last} ${d.first}`.toLocaleUpperCase("tr"), ref: `P-${i}`, at: at + i }
      : {
          amount: d.amount,
          name: "BASKA BIRI",
          description: `ODEME ${d.code}`,
          ref: `P-${i}`,
          at: at + i,
        },
  );
  for (let i = entries.length; i < LINES; i++)
    entries.push(
      i % 10 === 0
        ? {
            amount: `${(i % 900) + 1}.00`,
            direction: "debit",
            description: "EFT MASRAFI",
            ref: `X-${i}`,
            at: at + i,
          }
        : {
            amount: `${50_000 + i}.00`,
            name: `YABANCI ${i}`,
            description: "HAVALE",
            ref: `X-${i}`,
            at: at + i,
          },
    );
  return entries;
}

async function importRun(kind: StoreKind, dir: string): Promise<ImportRun> {
  const vs = await createKeptStore(kind);
  const server = await startServer(vs, ROOT);
  try {
    const url = server.child.url;
    const { account, firm } = await statementScene(url, vs.adminToken, {
      name: "Statement Firm",
      webhook_url: "http://127.0.0.1:9/cb",
    });
    log(`${kind}: making ${DEPOSITS} deposits`);
    const deposits = await makeDeposits(url, { apiKey: firm.api_key, secret: firm.secret_key });
    const file = join(dir, `statement-${kind}.xml`);
    writeFileSync(file, camtFile({ iban: IBAN, entries: statementEntries(deposits) }));
    const bytes = statSync(file).size;
    const pid = server.child.pid;
    const rssBefore = memoryKb(pid, "VmRSS");
    // Resets the peak resident size to the present one (Linux, clear_refs 5).
    writeFileSync(`/proc/${pid}/clear_refs`, "5");
    log(`${kind}: importing ${LINES.toLocaleString("en-US")} lines (${(bytes / 1e6).toFixed(1)} MB)`);
    const started = performance.now();
    const res = await request(`${url}/admin/v1/accounts/${account.id}/statements`, {
      method: "POST",
      headers: { authorization: `Bearer ${vs.adminToken}`, "content-type": "application/xml" },
      body: createReadStream(file),
      headersTimeout: 30 * 60_000,
      bodyTimeout: 30 * 60_000,
    });
    const answer = (await res.body.json()) as Record<string, unknown>;
    const seconds = (performance.now() - started) / 1000;
    if (res.statusCode !== 200)
      throw new Error(`import answered ${res.statusCode}: ${JSON.stringify(answer)}`);
    const peak = memoryKb(pid, "VmHWM");
    log(`${kind}: ${seconds.toFixed(1)} s, ${JSON.stringify({ ...answer, statements: undefined })}`);
    return {
      kind,
      bytes,
      seconds,
      rssBeforeMb: rssBefore / 1024,
      peakAboveMb: (peak - rssBefore) / 1024,
      answer,
    };
  } finally {
    await server.child.stop();
    await vs.remove();
  }
}

function matchingFigures(): Figures {
  const figures = emptyFigures();
  const mistakes: Mistake[] = [];
  for (let seed = 3400; seed < 3450; seed++) runDay(generateDay(seed, 2_000), figures, mistakes);
  return figures;
}

function feedTable(feeds: FeedRun[]): string[] {
  if (feeds.length === 0) return [];
  return [
    "",
    `The live feed on an idle server: ${feeds[0]?.samples ?? 0} deposits one after another, each paid by a feed line with its code; from the feed request's start to the merchant's callback at a local receiver:`,
    "",
    "| Store | Lines | p50 | p99 | max | Target |",
    "|---|---:|---:|---:|---:|---|",
    ...feeds.map(
      (f) =>
        `| ${f.kind} | ${f.samples} | ${f.p50Ms.toFixed(1)} ms | ${f.p99Ms.toFixed(1)} ms | ${f.maxMs.toFixed(1)} ms | ${f.p99Ms < 1000 ? "ok" : "**MISSED**"} (p99 < 1 s) |`,
    ),
  ];
}

function section(
  runs: ImportRun[],
  feeds: FeedRun[],
  figures: Figures,
  date: string,
  version: string,
): string {
  const pct = (n: number, of: number) => (of === 0 ? "—" : `${((100 * n) / of).toFixed(1)} %`);
  const rows = Object.entries(figures).map(([hazard, f]) => {
    const right =
      hazard === "own_name" || hazard === "code_other_name"
        ? `${pct(f.approvedRight, f.lines)} approved`
        : hazard === "after_cancel"
          ? `${pct(f.flaggedAfterCancel, f.lines)} flagged`
          : hazard === "repeated"
            ? `${pct(f.duplicates, f.lines)} duplicates`
            : hazard === "debit"
              ? `${pct(f.debits, f.lines)} debits`
              : `${pct(f.firstSuggestionRight + f.approvedRight, f.lines)} right deposit first`;
    return `| ${hazard} | ${f.lines.toLocaleString("en-US")} | ${right} | ${f.approvedWrong} |`;
  });
  const target = (r: ImportRun) =>
    `${r.seconds < 60 ? "ok" : "**MISSED**"} (< 60 s); memory ${r.peakAboveMb < 100 ? "ok" : "**MISSED**"} (< 100 MB)`;
  return [
    "## Reconciliation: bank statements",
    "",
    `Measured ${date} on ${version} by \`npm run bench:reconcile\` (bench/reconcile/run.ts).`,
    "",
    `A camt.053 of ${LINES.toLocaleString("en-US")} entries for one account, uploaded to the admin API as a stream; ${DEPOSITS.toLocaleString("en-US")} of them pay deposits made through the merchant API (half by name, half by code), the rest are other payments and debits:`,
    "",
    "| Store | File | Import (upload to answer) | Lines/s | Server RSS before | Peak above it | Approved | Targets |",
    "|---|---:|---:|---:|---:|---:|---:|---|",
    ...runs.map(
      (r) =>
        `| ${r.kind} | ${(r.bytes / 1e6).toFixed(1)} MB | ${r.seconds.toFixed(1)} s | ${Math.round(LINES / r.seconds).toLocaleString("en-US")} | ${r.rssBeforeMb.toFixed(0)} MB | ${r.peakAboveMb.toFixed(0)} MB | ${r.answer.approved} of ${DEPOSITS} | ${target(r)} |`,
    ),
    "",
    "The matching rule against generated statements with their true answers (test/support/statements.ts, the issue's fixed mix, 50 seeds of 2,000 lines):",
    "",
    "| Hazard | Lines | Right | Wrong approvals |",
    "|---|---:|---:|---:|",
    ...rows,
    ...feedTable(feeds),
  ].join("\n");
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "payintake-reconcile-"));
  try {
    const date = new Date().toISOString().replace(/\.\d+Z$/, "Z");
    const runs: ImportRun[] = [];
    const feeds: FeedRun[] = [];
    const hostile: HostileRun[] = [];
    for (const kind of STORES) {
      if (ONLY === undefined || ONLY === "hostile") hostile.push(...(await hostileRuns(kind, ROOT, log)));
      if (ONLY === "hostile") continue;
      if (ONLY !== "feed") runs.push(await importRun(kind, dir));
      log(`${kind}: ${FEED_SAMPLES} feed lines, one at a time`);
      feeds.push(await feedRun(kind, ROOT, FEED_SAMPLES));
      log(`${kind}: feed line to callback p99 ${feeds.at(-1)?.p99Ms.toFixed(1)} ms`);
    }
    const hostileBody = [
      "## Reconciliation: hostile statements",
      "",
      `Measured ${date} on ${codeVersion(ROOT)} by \`RECONCILE_ONLY=hostile npm run bench:reconcile\` (bench/reconcile/hostile.ts).`,
      ...hostileTable(hostile),
    ].join("\n");
    if (ONLY === "hostile") {
      process.stdout.write(`\n${hostileBody}\n`);
      // A run of some shapes only (RECONCILE_HOSTILE_ONLY) is printed, never written over the whole.
      if (STORES.length === 2 && process.env.RECONCILE_HOSTILE_ONLY === undefined)
        writeDocSections(BENCHMARKS_DOC, [{ name: "reconciliation-hostile", body: hostileBody }]);
      return;
    }
    const figures = matchingFigures();
    const body = section(runs, feeds, figures, date, codeVersion(ROOT));
    process.stdout.write(`\n${body}\n`);
    if (STORES.length === 2 && ONLY === undefined)
      writeDocSections(BENCHMARKS_DOC, [
        { name: "reconciliation", body },
        { name: "reconciliation-hostile", body: hostileBody },
      ]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  log(`failed: ${(err as Error).stack ?? String(err)}`);
  process.exitCode = 1;
});
