/**
 * Same-origin calls to /ops/api with the session cookie; every change carries the session's CSRF
 * token. A 401 anywhere means the session ended: the app goes back to sign-in, told whether it was
 * a change that was refused (then the operator's last action was not saved). A request the
 * operator's input caused is marked so, and every answer's idle time left is noted (activity.ts).
 */
import {
  answeredActivity,
  ENDS_IN_HEADER,
  heardEndsIn,
  heardIdleLeft,
  IDLE_LEFT_HEADER,
  markedSent,
  OPERATOR_ACTIVE_HEADER,
  operatorActive,
} from "./activity";

let csrf: string | null = null;
let onSignedOut: (changeRefused: boolean) => void = () => {};

export function setCsrf(token: string | null) {
  csrf = token;
}
export function whenSignedOut(handler: (changeRefused: boolean) => void) {
  onSignedOut = handler;
}

export interface Answer<T> {
  status: number;
  ok: boolean;
  // Every answer is JSON; errors are {"success": false, "message": ...}.
  json: T & { message?: string };
  headers: Headers;
}

/**
 * `keepalive`: the request goes on after the page is closed or reloaded (a held decision sent as the
 * operator leaves, held-decisions.ts); its answer is then read by nobody. `active`: the operator's doing (or
 * not) whatever the last input was (activity.ts). `type`: a Blob body's content type.
 */
export async function api<T = unknown>(
  method: string,
  path: string,
  body?: unknown,
  opts: { keepalive?: boolean; active?: boolean; type?: string } = {},
): Promise<Answer<T>> {
  // A file (a bank statement) goes as its own bytes, with its type: the server reads it as a stream.
  const raw = body instanceof Blob;
  const active = opts.active ?? operatorActive();
  if (active) markedSent();
  const sentAt = Date.now();
  const res = await fetch(`/ops/api${path}`, {
    method,
    credentials: "same-origin",
    cache: "no-store",
    keepalive: opts.keepalive === true,
    headers: {
      ...(body === undefined ? {} : { "content-type": raw ? (opts.type ?? body.type) : "application/json" }),
      ...(csrf && method !== "GET" ? { "x-csrf-token": csrf } : {}),
      ...(active ? { [OPERATOR_ACTIVE_HEADER]: "1" } : {}),
    },
    body: body === undefined ? undefined : raw ? body : JSON.stringify(body),
  });
  heardEndsIn(res.headers.get(ENDS_IN_HEADER), sentAt);
  const idleLeft = res.headers.get(IDLE_LEFT_HEADER);
  if (idleLeft !== null) heardIdleLeft(idleLeft, sentAt);
  else if (res.ok && (active || method !== "GET")) answeredActivity(sentAt);
  const json = (await res.json().catch(() => ({}))) as T & { message?: string };
  // Signing out is no change of the operator's: its refusal loses nothing.
  if (res.status === 401 && path !== "/login") onSignedOut(method !== "GET" && path !== "/logout");
  return { status: res.status, ok: res.status >= 200 && res.status < 300, json, headers: res.headers };
}

/** A query string from the filled fields only. */
export function query(fields: Record<string, string | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(fields)) if (v?.trim()) q.set(k, v.trim());
  return q.toString();
}
