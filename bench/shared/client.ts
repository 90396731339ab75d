import { randomBytes } from "node:crypto";
import { Agent, request } from "undici";
import { signRequest } from "../../src/crypto/signature.js";
import type { Credentials } from "./load.js";

/** Small HTTP helpers the scenario benchmarks share: plain calls, signed merchant calls, a worker pool. */
const agent = new Agent({ connections: 64 });

export async function call(
  url: string,
  method: "GET" | "POST" | "PATCH",
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; json: any }> {
  const res = await request(`${url}${path}`, { method, headers, body, dispatcher: agent });
  const text = await res.body.text();
  return { status: res.statusCode, json: text ? JSON.parse(text) : undefined };
}

/** A merchant request's headers, signed like the contract says. */
export function signedHeaders(
  creds: Credentials,
  method: "GET" | "POST",
  path: string,
  body: string,
): Record<string, string> {
  const timestamp = String(Math.floor(Date.now() / 1000));
  const nonce = randomBytes(12).toString("hex");
  const signature = signRequest(creds.secret, { method, path, body: Buffer.from(body), timestamp, nonce });
  return {
    ...(body ? { "content-type": "application/json" } : {}),
    "x-api-key": creds.apiKey,
    "x-signature": signature,
    "x-timestamp": timestamp,
    "x-nonce": nonce,
  };
}

/** A merchant call, signed like the contract says. */
export function signedCall(url: string, creds: Credentials, method: "GET" | "POST", path: string, body = "") {
  return call(url, method, path, signedHeaders(creds, method, path, body), body || undefined);
}

/** A direct deposit body with its own reference and user, so no business rule refuses it. */
export function depositJson(id: string, bankCode = "AKBANK"): string {
  return JSON.stringify({
    amount: "150.00",
    bank_code: bankCode,
    first_name: "Ayşe",
    last_name: "Yılmaz",
    username: "ayse",
    user_id: `u-${id}`,
    reference: `R-${id}`,
  });
}

/** Runs `work` over the items with `concurrency` callers at a time. */
export async function pool<T>(
  items: T[],
  concurrency: number,
  work: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) {
        const item = items[next++] as T;
        await work(item);
      }
    }),
  );
}

export function adminHeaders(token: string): Record<string, string> {
  return { authorization: `Bearer ${token}`, "content-type": "application/json" };
}
