/**
 * What /metrics exposes (Prometheus text format). Labels are bounded: routes are templates
 * (`/paymentapi/v1/transactions/:id`), outcomes and channels come from fixed or operator-made sets;
 * nothing carries an id, a reference or a token. Counters are per instance; Prometheus sums them.
 */
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";

export interface MetricsSources {
  /** Pending and failed callbacks, read at scrape time from the store (shared by every instance). */
  callbackCounts(): Promise<{ pending: number; failed: number }>;
  /** Receivers this instance's callback worker sends to: slow or not, attempts hanging. */
  callbackReceivers(): readonly { origin: string; slow: boolean; hanging: number }[];
  /** Breaker mode per channel code on this instance. */
  breakers(): Promise<ReadonlyMap<string, string>>;
}

const BREAKER_LEVEL: Record<string, number> = { closed: 0, half_open: 1, open: 2 };

export function createMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: "payintake_" });
  let sources: MetricsSources | undefined;

  const metrics = {
    registry,
    httpRequests: new Counter({
      name: "payintake_http_requests_total",
      help: "HTTP answers by route template, method and status",
      labelNames: ["route", "method", "status"] as const,
      registers: [registry],
    }),
    httpDuration: new Histogram({
      name: "payintake_http_request_duration_seconds",
      help: "Time to answer, by route template and method",
      labelNames: ["route", "method"] as const,
      buckets: [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30],
      registers: [registry],
    }),
    deposits: new Counter({
      name: "payintake_deposits_total",
      help: "Deposit requests that passed validation, by outcome (created, hosted, or the rejection)",
      labelNames: ["outcome"] as const,
      registers: [registry],
    }),
    hostedReferenceReused: new Counter({
      name: "payintake_hosted_reference_reused_total",
      help: "Payment page amounts refused because the merchant opened the session with a reference already used",
      registers: [registry],
    }),
    routingAttempts: new Counter({
      name: "payintake_routing_attempts_total",
      help: "Accounts tried while routing deposits, by channel (manual for none) and outcome",
      labelNames: ["channel", "outcome"] as const,
      registers: [registry],
    }),
    callbackDeliveries: new Counter({
      name: "payintake_callback_attempts_total",
      help: "Callback delivery attempts by outcome (delivered, retry, failed)",
      labelNames: ["outcome"] as const,
      registers: [registry],
    }),
    statementImports: new Gauge({
      name: "payintake_statement_imports",
      help: "Bank statement imports this instance is reading now (at most PAYINTAKE_STATEMENT_IMPORTS)",
      registers: [registry],
    }),
    /** Wires the scrape-time readings; before this they read as empty. */
    observe(s: MetricsSources) {
      sources = s;
    },
  };

  new Gauge({
    name: "payintake_callback_queue",
    help: "Callbacks waiting in the store: pending (to be delivered or retried) and failed",
    labelNames: ["status"] as const,
    registers: [registry],
    async collect() {
      // A store that cannot answer leaves the gauge out of this scrape; the rest still reports.
      const counts = await sources?.callbackCounts().catch(() => undefined);
      this.reset();
      if (counts) for (const [status, n] of Object.entries(counts)) this.set({ status }, n);
    },
  });
  // Labelled by origin (scheme, host and port of a merchant's receiver: operator-made, a few per
  // firm) and only for receivers that are slow or have an attempt hanging, so the series stay few.
  new Gauge({
    name: "payintake_callback_receiver_slow",
    help: "1 for each receiver this instance treats as slow (one attempt at a time), 0 for one only hanging",
    labelNames: ["origin"] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const r of sources?.callbackReceivers() ?? [])
        if (r.slow || r.hanging > 0) this.set({ origin: r.origin }, r.slow ? 1 : 0);
    },
  });
  new Gauge({
    name: "payintake_callback_hanging_attempts",
    help: "Callback attempts in flight longer than their receiver usually takes, by receiver origin",
    labelNames: ["origin"] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const r of sources?.callbackReceivers() ?? [])
        if (r.hanging > 0) this.set({ origin: r.origin }, r.hanging);
    },
  });
  new Gauge({
    name: "payintake_channel_breaker_state",
    help: "Each channel's breaker on this instance: 0 closed, 1 half-open, 2 open",
    labelNames: ["channel"] as const,
    registers: [registry],
    async collect() {
      const modes = await sources?.breakers().catch(() => undefined);
      this.reset();
      for (const [channel, mode] of modes ?? []) this.set({ channel }, BREAKER_LEVEL[mode] ?? 0);
    },
  });
  return metrics;
}

export type Metrics = ReturnType<typeof createMetrics>;
