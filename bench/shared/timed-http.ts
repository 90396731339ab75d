import { Agent, request } from "undici";
import { signedHeaders } from "./client.js";
import type { Credentials } from "./load.js";

/**
 * One request timed from sending to the last byte of the answer, with the time to its first byte
 * (undici answers once the status line and headers are in). The body is counted, and kept only when
 * asked: a day's CSV export is megabytes.
 */
export interface Answer {
  status: number;
  ms: number;
  firstByteMs: number;
  bytes: number;
  /** The body when `keep` was asked, else its first few hundred characters (for error reports). */
  text: string;
  headers: Record<string, string | string[] | undefined>;
}

/** Calls go one at a time, so a few kept-alive connections are all there is to reuse. */
const agent = new Agent({ connections: 4, keepAliveTimeout: 60_000, headersTimeout: 0, bodyTimeout: 0 });

const KEPT_FOR_ERRORS = 400;

export async function timedRequest(
  url: string,
  method: "GET" | "POST" | "PATCH",
  path: string,
  headers: Record<string, string>,
  body?: string,
  keep = false,
): Promise<Answer> {
  const started = performance.now();
  const res = await request(`${url}${path}`, { method, headers, body, dispatcher: agent });
  const firstByteMs = performance.now() - started;
  let bytes = 0;
  let text = "";
  for await (const chunk of res.body as AsyncIterable<Buffer>) {
    bytes += chunk.length;
    if (keep || text.length < KEPT_FOR_ERRORS) text += chunk.toString("utf8");
  }
  const ms = performance.now() - started;
  return { status: res.statusCode, ms, firstByteMs, bytes, text, headers: res.headers };
}

/**
 * A merchant's request, signed as the contract says (X-Signature over method, path, body, time,
 * nonce). Its answer is small and kept: the lookups read the id from it.
 */
export function merchantCall(
  url: string,
  creds: Credentials,
  method: "GET" | "POST",
  path: string,
  body = "",
) {
  return timedRequest(url, method, path, signedHeaders(creds, method, path, body), body || undefined, true);
}

export async function adminCall(
  url: string,
  token: string,
  method: "GET" | "POST" | "PATCH",
  path: string,
  body?: unknown,
): Promise<Answer> {
  return timedRequest(
    url,
    method,
    path,
    {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    body === undefined ? undefined : JSON.stringify(body),
    true,
  );
}

/** The admin API's JSON answer, or an error naming the call when it is not the status expected. */
export async function adminJson(
  url: string,
  token: string,
  method: "GET" | "POST" | "PATCH",
  path: string,
  body?: unknown,
  expected = method === "POST" ? 201 : 200,
): Promise<any> {
  const res = await adminCall(url, token, method, path, body);
  if (res.status !== expected) throw new Error(`${method} ${path} answered ${res.status}: ${res.text}`);
  return JSON.parse(res.text);
}

/** A path with its query, leaving out the parameters that are not set. */
export function withQuery(path: string, query: Record<string, string | number | undefined>): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined) params.set(k, String(v));
  const q = params.toString();
  return q === "" ? path : `${path}?${q}`;
}
