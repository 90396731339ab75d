import { readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { turkishIbanFor } from "../../src/domain/iban.js";
import { pool, signedCall } from "../shared/client.js";
import { createKeptStore, type KeptStore, type RunningServer, startServer } from "../shared/kept-store.js";
import { FIRST_NAMES, LAST_NAMES } from "../shared/names.js";
import type { StoreKind } from "../shared/payintake.js";
import { adminJson } from "../shared/timed-http.js";
import { ROOT } from "../shared/tree.js";

/** The company account that pays, and the one the statements are for. */
export const PAYING_IBAN = "TR330006100519786457841326";

export const log = (line: string) => process.stdout.write(`[payouts] ${line}\n`);

export function memoryKb(pid: number, field: "VmRSS" | "VmHWM"): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(new RegExp(`^${field}:\\s+(\\d+) kB$`, "m").exec(status)?.[1] ?? Number.NaN);
}

/** Resets the process's peak resident size to its present one (Linux, clear_refs 5). */
export function resetPeak(pid: number): void {
  writeFileSync(`/proc/${pid}/clear_refs`, "5");
}

export function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? Number.NaN;
}

/** The machine's 1-minute load average, to say how busy it was beside each figure. */
export const loadAverage = () => Number(readFileSync("/proc/loadavg", "utf8").split(" ")[0]);

export interface Scene {
  kind: StoreKind;
  vs: KeptStore;
  server: RunningServer;
  url: string;
  token: string;
  firm: { id: number; api_key: string; secret_key: string };
  close(): Promise<void>;
}

/**
 * payintake on a fresh store, a firm paid in batches without bounds in the way (rate, pending count
 * and amount) whose callbacks go to `webhookUrl`, and payouts on for every firm with no two-person
 * rule (a batch of 10,000 is far above the default 100,000.00 TL; the second operator is a console
 * sign-in, not what is measured).
 */
export async function startScene(
  kind: StoreKind,
  webhookUrl: string,
  env: Record<string, string> = {},
): Promise<Scene> {
  const vs = await createKeptStore(kind);
  Object.assign(vs.env, env);
  const server = await startServer(vs, ROOT);
  const url = server.child.url;
  const token = vs.adminToken;
  try {
    const firm = await adminJson(url, token, "POST", "/admin/v1/firms", {
      name: "Payout Firm",
      webhook_url: webhookUrl,
      rate_limit_per_second: 100_000,
      max_pending_count: null,
      max_pending_amount: null,
    });
    await adminJson(url, token, "PATCH", "/admin/v1/payouts/settings", {
      payouts: true,
      two_person_batch_above: "none",
      // The scene makes no deposits: its payouts are not held to the firm's balance.
      balance_guard: false,
      actor: "bench",
    });
    return {
      kind,
      vs,
      server,
      url,
      token,
      firm,
      async close() {
        await server.child.stop();
        await vs.remove();
      },
    };
  } catch (err) {
    await server.child.stop();
    await vs.remove();
    throw err;
  }
}

export async function addAccount(
  scene: Scene,
  extra: Record<string, unknown> = {},
): Promise<{ id: number; iban: string }> {
  return adminJson(scene.url, scene.token, "POST", "/admin/v1/accounts", {
    bank_name: "Ziraat Bankası",
    holder_name: "Ödeme Hizmetleri A.Ş.",
    iban: PAYING_IBAN,
    ...extra,
  });
}

/** The i-th payee: a name of the Turkish letters, an IBAN of their own, an amount of their own. */
export function payee(i: number) {
  return {
    first: FIRST_NAMES[i % FIRST_NAMES.length] as string,
    last: LAST_NAMES[Math.floor(i / FIRST_NAMES.length) % LAST_NAMES.length] as string,
    iban: turkishIbanFor(String(1_000_000 + i).padStart(22, "0")),
    amount: `${100 + (i % 5_000)}.${String(i % 100).padStart(2, "0")}`,
  };
}

/** `count` pending withdrawals through the merchant API, eight callers at a time. */
export async function makeWithdrawals(scene: Scene, count: number, tag: string): Promise<number> {
  const creds = { apiKey: scene.firm.api_key, secret: scene.firm.secret_key };
  const started = performance.now();
  await pool(
    Array.from({ length: count }, (_, i) => i),
    8,
    async (i) => {
      const p = payee(i);
      const body = JSON.stringify({
        amount: p.amount,
        bank_code: "GARANTI",
        first_name: p.first,
        last_name: p.last,
        username: `payee${i}`,
        user_id: `${tag}-u-${i}`,
        reference: `${tag}-${i}`,
        iban: p.iban,
      });
      const r = await signedCall(scene.url, creds, "POST", "/paymentapi/v1/withdrawals", body);
      if (r.status !== 200) throw new Error(`withdrawal ${i}: ${r.status} ${JSON.stringify(r.json)}`);
    },
  );
  return (performance.now() - started) / 1000;
}

/** A merchant's callback receiver: each callback's arrival and status by transaction id. */
export async function startReceiver() {
  const arrived = new Map<number, { at: number; status: string }>();
  const waiting = new Map<number, () => void>();
  let received = 0;
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => {
      body += c;
    });
    req.on("end", () => {
      const json = JSON.parse(body) as { id: number; status: string };
      const id = Number(json.id);
      received++;
      if (!arrived.has(id)) arrived.set(id, { at: performance.now(), status: json.status });
      waiting.get(id)?.();
      res.end("OK");
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/cb`,
    arrived,
    received: () => received,
    arrival: (id: number) =>
      arrived.has(id)
        ? Promise.resolve(arrived.get(id)?.at as number)
        : new Promise<number>((resolve) => waiting.set(id, () => resolve(arrived.get(id)?.at as number))),
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

export type Receiver = Awaited<ReturnType<typeof startReceiver>>;

/** Waits until `done()` holds or `timeoutMs` passes; answers whether it held. */
export async function until(done: () => boolean, timeoutMs: number): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > end) return false;
    await new Promise((r) => setTimeout(r, 50));
  }
  return true;
}
