import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { adminHeaders, call, depositJson, pool, signedCall } from "../shared/client.js";
import { DEPOSIT_PATH } from "../shared/load.js";

/**
 * What the callbacks' isolation cases share: a receiver that plays the merchant and can misbehave
 * on chosen attempts, a firm whose deposits wait for the operators' decisions, and the operator's
 * approval.
 */

/** How the receiver answers one request: 200, another status, or never ("hold"). */
export type Answer = "hold" | number;

export interface Receiver {
  url: string;
  /** First arrival per transaction id that was answered 2xx, on the bench's clock. */
  delivered: Map<number, number>;
  /** Requests per transaction id. */
  requests: Map<number, number>;
  /** Each request per transaction id: its X-Callback-Attempt and arrival, in order of arrival. */
  arrivals: Map<number, { attempt: number; at: number }[]>;
  /** How to answer; keyed on the transaction id (the body's `id`) and the X-Callback-Attempt. */
  answer: (id: number, attempt: number) => Answer;
  /** The most requests held unanswered at one time. */
  maxHeld: number;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const held = new Set<ServerResponse>();
  const r: Receiver = {
    url: "",
    delivered: new Map(),
    requests: new Map(),
    arrivals: new Map(),
    answer: () => 200,
    maxHeld: 0,
    close: async () => {},
  };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const at = performance.now();
      const id = JSON.parse(Buffer.concat(chunks).toString("utf8")).id as number;
      const attempt = Number(req.headers["x-callback-attempt"]);
      r.requests.set(id, (r.requests.get(id) ?? 0) + 1);
      const seen = r.arrivals.get(id);
      if (seen) seen.push({ attempt, at });
      else r.arrivals.set(id, [{ attempt, at }]);
      const answer = r.answer(id, attempt);
      if (answer === "hold") {
        held.add(res);
        r.maxHeld = Math.max(r.maxHeld, held.size);
        res.on("close", () => held.delete(res));
        return;
      }
      res.writeHead(answer).end(answer < 300 ? "ok" : "not now");
      if (answer < 300 && !r.delivered.has(id)) r.delivered.set(id, at);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  r.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/cb`;
  r.close = async () => {
    for (const res of held) res.destroy();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return r;
}

/** A firm whose webhook is the receiver, an account, and `n` pending deposits; their ids. */
export async function pendingDeposits(
  url: string,
  adminToken: string,
  webhook: string,
  n: number,
): Promise<number[]> {
  const headers = adminHeaders(adminToken);
  const firm = await call(
    url,
    "POST",
    "/admin/v1/firms",
    headers,
    JSON.stringify({
      name: "Isolation Bench",
      webhook_url: webhook,
      rate_limit_per_second: 1_000_000,
      max_pending_count: null,
      max_pending_amount: null,
    }),
  );
  if (firm.status !== 201) throw new Error(`firm create answered ${firm.status}`);
  const creds = { apiKey: firm.json.api_key as string, secret: firm.json.secret_key as string };
  await call(
    url,
    "POST",
    "/admin/v1/accounts",
    headers,
    JSON.stringify({ bank_name: "Akbank", holder_name: "Bench", iban: "TR020006100519786457841399" }),
  );
  const run = randomBytes(4).toString("hex");
  const ids: number[] = new Array(n).fill(0);
  await pool(
    Array.from({ length: n }, (_v, i) => i),
    16,
    async (i) => {
      const res = await signedCall(url, creds, "POST", DEPOSIT_PATH, depositJson(`${run}-${i}`));
      if (res.status !== 200) throw new Error(`deposit answered ${res.status}`);
      const q = await signedCall(url, creds, "GET", `/paymentapi/v1/transactions/by-reference/R-${run}-${i}`);
      ids[i] = q.json.data.id as number;
    },
  );
  return ids;
}

/** The operator's approval of one transaction, through the admin API at `url`. */
export function approver(url: string, adminToken: string) {
  const headers = adminHeaders(adminToken);
  return async (id: number) => {
    const res = await call(
      url,
      "POST",
      `/admin/v1/transactions/${id}/approve`,
      headers,
      '{"actor":"operator:bench"}',
    );
    if (res.status !== 200) throw new Error(`approve ${id} answered ${res.status}`);
  };
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Waits until `check` holds or `timeoutMs` passes, looking every 50 ms. */
export async function until(check: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!check() && performance.now() < deadline) await sleep(50);
}

/** Every `1/share`-th of `ids` (the last of each run of that length), spread evenly so runs compare. */
export function everyNth(ids: number[], share: number): Set<number> {
  const every = share > 0 ? Math.round(1 / share) : 0;
  return new Set(every > 0 ? ids.filter((_id, i) => i % every === every - 1) : []);
}
