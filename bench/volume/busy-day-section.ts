import type { StoreKind } from "../shared/payintake.js";
import type { BusyDayResult } from "./busy-day.js";
import type { VolumeConfig } from "./config.js";

/** The summary's target on a busy day (issue 50). */
export const BUSY_SUMMARY_P50_MS = 20;

const SHORT: Record<StoreKind, string> = { sqlite: "SQLite", postgres: "PostgreSQL" };
const ms = (n: number) => (!Number.isFinite(n) ? "n/a" : n < 10 ? n.toFixed(1) : n.toFixed(0));

/** The "volume-busy-day" section of docs/BENCHMARKS.md. */
export function busyDaySection(results: BusyDayResult[], cfg: VolumeConfig, date: string, version: string) {
  const rows = results.map((r) => {
    const met = r.summary.p50 < BUSY_SUMMARY_P50_MS && r.counted > 0;
    return (
      `| ${SHORT[r.kind]} | ${r.size.toLocaleString("en-US")} | ${r.pending.toLocaleString("en-US")} | ` +
      `${r.counted.toLocaleString("en-US")} | ${Math.round(r.seed.perSecond).toLocaleString("en-US")} | ` +
      `${ms(r.summary.p50)} / ${ms(r.summary.p99)} | ${met ? "ok" : "**MISSED**"} |`
    );
  });
  return [
    "## Volume: the console's summary on a busy day",
    "",
    `Measured ${date} on ${version} by \`npm run bench:volume\` (bench/volume/busy-day.ts): a fresh store per ` +
      "store kind holding only today's transactions, made from the start of the Türkiye day to the run's start, " +
      `${cfg.busyPending.toLocaleString("en-US")} of them pending throughout the day, the rest decided with their ` +
      "callbacks (97 % delivered) and audit entries, seeded as the volume section's rows are; the summary " +
      `(\`/ops/api/dashboard\`) called ${cfg.calls} times after ${cfg.warmup} warm-up calls, one at a time, ` +
      "as an admin signed in with a second factor. Counted: today's transactions in the summary's answer (the " +
      "test firm's left out), which shows the day was not cut by midnight. Target (issue 50): " +
      `p50 < ${BUSY_SUMMARY_P50_MS} ms.`,
    "",
    "| Store | transactions today | pending | counted by the summary | seeding, transactions/s | summary p50 / p99 ms | Target |",
    "|---|---:|---:|---:|---:|---:|---|",
    ...rows,
  ].join("\n");
}
