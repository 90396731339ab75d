import type { StoreKind } from "../shared/payintake.js";
import type { RoutingBenchResult } from "./hanging-channel.js";

/** Deposits per phase, callers at a time, and the channel's timeout. */
export const ROUTING = { requests: 1_000, concurrency: 10, timeoutMs: 1_000 };

export interface RoutingRun {
  kind: StoreKind;
  result?: RoutingBenchResult;
  failure?: string;
}

/** The "routing" section of docs/BENCHMARKS.md. */
export function routingSection(date: string, version: string, runs: RoutingRun[]): string {
  const mark = (ok: boolean) => (ok ? "ok" : "**MISSED**");
  const rows = runs.map((r) => {
    const label = r.kind === "sqlite" ? "SQLite (embedded)" : "PostgreSQL";
    if (!r.result) return `| ${label} | failed: ${r.failure ?? "unknown"} | | | | | |`;
    const { normal, unlucky, afterOpen, timeoutMs } = r.result;
    const worst = Math.max(...unlucky);
    const targets = [
      `open p99 ≤ 2 × normal p99: ${mark(afterOpen.p99 <= 2 * normal.p99)}`,
      `unlucky ≤ timeout + 250 ms: ${mark(worst <= timeoutMs + 250)}`,
    ].join("; ");
    return (
      `| ${label} | ${normal.p50.toFixed(1)} / ${normal.p99.toFixed(1)} | ${unlucky.length} | ` +
      `${unlucky.map((ms) => ms.toFixed(0)).join(", ")} | ${afterOpen.p50.toFixed(1)} / ${afterOpen.p99.toFixed(1)} | ` +
      `${afterOpen.max.toFixed(1)} | ${targets} |`
    );
  });
  return [
    "## Routing: deposits while the first channel hangs",
    "",
    `Measured ${date} on ${version} by \`npm run bench\` (bench/routing/hanging-channel.ts); this section is rewritten by every run.`,
    "",
    "| Store | normal p50 / p99 ms | unlucky deposits | their latency ms | breaker open p50 / p99 ms | breaker open max ms | Targets |",
    "|---|---:|---:|---|---:|---:|---|",
    ...rows,
    "",
    `- The preferred account (bank_code AKBANK) is behind an http channel played by the channel simulator in the bench process (timeout ${ROUTING.timeoutMs} ms); a manual account is the fallback.`,
    `- normal: ${ROUTING.requests} signed deposits, ${ROUTING.concurrency} at a time, the channel accepting at once (one ask per deposit), after 200 warm-up deposits.`,
    "- unlucky: the channel now hangs; deposits one at a time until one returns in under half the timeout (the breaker opened after 3 failures in a row); each of them waited for the timeout, then the fallback served it.",
    `- breaker open: ${ROUTING.requests} more deposits, ${ROUTING.concurrency} at a time; the dead channel is skipped without waiting, also after each 10 s cool-down, when a probe in the background (no payer) asks it whether it is back.`,
    "- Targets: with the breaker open, p99 within 2 × the normal p99; the unlucky deposits bounded by the channel timeout (plus 250 ms).",
  ].join("\n");
}
