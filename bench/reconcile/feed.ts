import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { request } from "undici";
import { signFeedRequest } from "../../src/crypto/signature.js";
import { signedCall } from "../shared/client.js";
import { createKeptStore, startServer } from "../shared/kept-store.js";
import type { StoreKind } from "../shared/payintake.js";
import { adminJson } from "../shared/timed-http.js";
import { STATEMENT_IBAN, statementScene } from "./scene.js";

/**
 * A live feed's line to the merchant's callback, on an idle server (issue 34: p99 under 1 s): one
 * deposit at a time is made, then its line (the code and the amount) posted to
 * `POST /feed/v1/accounts/{id}/lines`; timed from the feed request's start to the callback's
 * arrival at a local receiver.
 */
export interface FeedRun {
  kind: StoreKind;
  samples: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

const _IBAN = STATEMENT_IBAN;

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? Number.NaN;
}

/** A merchant's receiver: each callback's arrival time by transaction id. */
async function startReceiver() {
  const arrived = new Map<number, number>();
  const waiting = new Map<number, () => void>();
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => {
      body += c;
    });
    req.on("end", () => {
      const id = Number((JSON.parse(body) as { id: number }).id);
      arrived.set(id, performance.now());
      waiting.get(id)?.();
      res.end("OK");
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/cb`,
    arrival: (id: number) =>
      arrived.has(id)
        ? Promise.resolve(arrived.get(id) as number)
        : new Promise<number>((resolve) => waiting.set(id, () => resolve(arrived.get(id) as number))),
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

export async function feedRun(kind: StoreKind, root: string, samples: number): Promise<FeedRun> {
  const vs = await createKeptStore(kind);
  const server = await startServer(vs, root);
  const receiver = await startReceiver();
  try {
    const url = server.child.url;
    const { account, firm } = await statementScene(url, vs.adminToken, {
      name: "Feed Firm",
      webhook_url: receiver.url,
    });
    const feed = await adminJson(
      url,
      vs.adminToken,
      "POST",
      `/admin/v1/accounts/${account.id}/feed-secret`,
      {},
      200,
    );
    const creds = { apiKey: firm.api_key, secret: firm.secret_key };
    const times: number[] = [];
    for (let i = 0; i < samples; i++) {
      const amount = `${100 + i}.00`;
      const body = JSON.stringify({
        amount,
        bank_code: "AKBANK",
        first_name: "Ayşe",
        last_name: "Yılmaz",
        username: `feed${i}`,
        user_id: `feed-${i}`,
        reference: `FEED-${i}`,
      });
      if ((await signedCall(url, creds, "POST", "/paymentapi/v1/deposits", body)).status !== 200)
        throw new Error(`deposit ${i} refused`);
      const q = await signedCall(url, creds, "GET", `/paymentapi/v1/transactions/by-reference/FEED-${i}`);
      const id = Number(q.json.data.id);
      const code = String(q.json.data.payment_code);
      const line = Buffer.from(
        JSON.stringify({
          booked_at: new Date().toISOString(),
          amount,
          sender_name: "BASKA BIRI",
          description: `FAST ${code}`,
          bank_ref: `FEED-LINE-${i}`,
        }),
      );
      const path = `/feed/v1/accounts/${account.id}/lines`;
      const timestamp = String(Math.floor(Date.now() / 1000));
      const started = performance.now();
      const res = await request(`${url}${path}`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "x-feed-timestamp": timestamp,
          "x-feed-signature": signFeedRequest(feed.secret, timestamp, path, line),
        },
        body: line,
      });
      const answer = (await res.body.json()) as { approved?: number };
      if (res.statusCode !== 200 || answer.approved !== 1)
        throw new Error(`feed line ${i}: ${res.statusCode} ${JSON.stringify(answer)}`);
      times.push((await receiver.arrival(id)) - started);
    }
    const sorted = [...times].sort((a, b) => a - b);
    return {
      kind,
      samples,
      p50Ms: quantile(sorted, 0.5),
      p99Ms: quantile(sorted, 0.99),
      maxMs: sorted[sorted.length - 1] ?? Number.NaN,
    };
  } finally {
    await receiver.close();
    await server.child.stop();
    await vs.remove();
  }
}
