import { availableParallelism } from "node:os";
import { sizeLabel, type VolumeConfig } from "./config.js";
import {
  buildsTable,
  csvTable,
  missedTargets,
  pathsTable,
  problems,
  type StoreRun,
  stepsTable,
  TARGETS,
} from "./report.js";

/**
 * The "volume" section of docs/BENCHMARKS.md: each table with the stores side by side (the same path
 * in one row), then how it was measured.
 */
export function volumeSection(runs: StoreRun[], cfg: VolumeConfig, date: string, version: string): string {
  const sizes = ["empty", ...cfg.sizes.map(sizeLabel)].join(", ");
  const missed = missedTargets(runs);
  const trouble = runs.flatMap(problems);
  const builds = buildsTable(runs);
  return [
    "## Volume: every path as the transactions table grows",
    "",
    `Measured ${date} on ${version} by \`npm run bench:volume\` (bench/volume/run.ts), sizes ${sizes} ` +
      `transactions; ${cfg.calls} calls per path and size after ${cfg.warmup} warm-up calls, one at a time. ` +
      `p50 and p99 are nearest-rank: of ${cfg.calls} calls the p99 is the slowest one. This section is rewritten ` +
      "by every run on both stores whose largest size is at least 100,000.",
    "",
    stepsTable(runs),
    "",
    "Each path's p50 / p99 in ms at each size; growth is the p50 at the largest size ÷ the p50 at the " +
      'smallest above empty; Targets names the checks a store missed ("ok": every check met, "—": none applies):',
    "",
    pathsTable(runs, cfg.calls),
    "",
    missed.length === 0 ? "All targets met." : `Targets missed: ${missed.join(". ")}.`,
    "",
    "CSV export of a day (`/ops/api/transactions.csv?from=…&to=…`):",
    "",
    csvTable(runs),
    "",
    ...(builds
      ? [
          "The volume migrations' builds, seconds (on SQLite each holds every write while it runs: a " +
            "maintenance window's length; on PostgreSQL CONCURRENTLY, writes going on meanwhile):",
          "",
          builds,
          "",
        ]
      : []),
    ...(trouble.length > 0
      ? ["Answers other than 200, and errors in the server's log:", "", ...trouble, ""]
      : []),
    "### What is measured and how",
    "",
    ...howMeasured(cfg).map((line) => `- ${line}`),
  ].join("\n");
}

function howMeasured(cfg: VolumeConfig): string[] {
  return [
    `The store: one per store kind, grown through the sizes in turn (each step adds the older rows; nothing is seeded twice), ` +
      `${cfg.perDay.toLocaleString("en-US")} transactions a day back from the start of the run (so 100k is ` +
      `${((100_000 / cfg.perDay) | 0).toLocaleString("en-US")} days, 10M ${((10_000_000 / cfg.perDay) | 0).toLocaleString("en-US")}), ` +
      "ids rising with time as in production. Six live firms and a test firm, eight payment accounts (three with daily caps), " +
      "65 % deposits; Turkish names (with ç ğ ı İ ö ş ü) per payer, usernames, national ids sealed as intake seals them, " +
      "withdrawal IBANs valid (a few mistyped, some grouped or in lower case), amounts in kuruş. The newest half day holds " +
      `about ${cfg.pending.toLocaleString("en-US")} pending transactions, on users of their own (one pending per firm, user and type), ` +
      "plus a stuck withdrawal every 2,000 rows of the last 30 days; everything else is decided (by operators, the admin API, " +
      "or auto-cancel a week later), each decision with its callback (97 % delivered, 3 % failed after nine attempts) and audit entry.",
    "Seeding goes through the store's own connection (bench/volume/seed.ts), 10,000 transactions per database transaction (two at a time on PostgreSQL); " +
      "no server runs meanwhile. PostgreSQL then gets VACUUM ANALYZE, as autovacuum would after a bulk load; SQLite gets none " +
      "from the seeding: the server takes its statistics by itself two seconds after it opens the store. Callback attempts are not seeded: only the detail reads them, by index.",
    "Measuring: payintake (`node dist/main/cli.js serve`, LOG_LEVEL=warn) started on the grown store as a child process; " +
      "an admin operator signed in with password and second factor; every path called through HTTP one call at a time, " +
      "each call with other parameters that exist at that size (references, ids, names, amounts, IBANs and days of the " +
      `seeded rows). A path stops early, after at least 5 calls, once its calls took ${cfg.pathBudgetMs / 1000} s; the table says so.`,
    "The empty store is measured first: it is the merchant paths' baseline (its lookups find rows the merchant paths wrote). " +
      "Merchant deposits and withdrawals are new rows; deposits route to the accounts and sum their daily caps.",
    "Store calls are not HTTP paths: auto-cancel's scan (`decisions.autoCancel`, nothing due) and the daily-cap sum " +
      "(`capHolds.usage`) are called in the bench process, on the store as the service opens it, after the server has stopped.",
    "Index builds (from " +
      `${sizeLabel(cfg.buildsFrom || 0)} on): after a size is measured, each index of the volume migrations is dropped and built again ` +
      "as its migration builds it (SQLite in one statement; PostgreSQL CONCURRENTLY, no load meanwhile), and SQLite's full-text table rebuilt.",
    "Server peak RSS is the kernel's high-water mark (VmHWM) of the server process over the step; server start is from spawning to listening.",
    `Targets (issue 33): every console screen, search and admin list p50 < ${TARGETS.screenP50Ms} ms and p99 < ${TARGETS.screenP99Ms} ms, ` +
      `and for those at least ${TARGETS.growthFromP50Ms} ms at the smallest size a p50 growth to the largest of at most ${TARGETS.growthMax}x; ` +
      `merchant paths p50 at most 20 % above the empty store; CSV first byte p50 < ${TARGETS.csvFirstByteMs} ms; server RSS < 300 MB. ` +
      `Store calls are shown without a target. Machine: ${availableParallelism()} cores shared by the bench, the server and PostgreSQL.`,
  ];
}
