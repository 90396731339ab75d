import { request } from "undici";
import type { TestServer } from "./harness.js";

/** Calls to the console's API as a browser makes them: the session cookie and the CSRF header. */
export interface ConsoleSession {
  cookie: string;
  csrf: string;
}

export async function consoleCall(
  server: TestServer,
  method: string,
  path: string,
  opts: { cookie?: string; csrf?: string; body?: unknown; headers?: Record<string, string> } = {},
) {
  const res = await request(`${server.url}${path}`, {
    method: method as "GET",
    headers: {
      ...(opts.body === undefined ? {} : { "content-type": "application/json" }),
      ...(opts.cookie ? { cookie: opts.cookie } : {}),
      ...(opts.csrf ? { "x-csrf-token": opts.csrf } : {}),
      ...opts.headers,
    },
    body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
  });
  const text = await res.body.text();
  const json: any = text ? JSON.parse(text) : undefined;
  return { status: res.statusCode, json, headers: res.headers };
}

/** The Set-Cookie line an answer sent for cookie `name`; "" when none. */
export function setCookieLine(headers: Record<string, unknown>, name: string): string {
  const raw = headers["set-cookie"] as string | string[] | undefined;
  const lines = raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
  return lines.find((l) => l.startsWith(`${name}=`)) ?? "";
}

/** The session cookie (`payintake_ops=…`) an answer set, as a browser would send it back; "" when none. */
export function sessionCookieOf(res: { headers: Record<string, unknown> }): string {
  return setCookieLine(res.headers, "payintake_ops").split(";")[0] ?? "";
}

/**
 * A sign-in as the console page makes it. `device`: the browser's known-browser cookie to send
 * (`payintake_device=…`, from an earlier sign-in's `device`). `setCookie` is the session cookie's
 * Set-Cookie line, `setDeviceCookie` the known-browser one's ("" when not set).
 */
export async function consoleLogin(
  server: TestServer,
  email: string,
  password: string,
  code?: string,
  device?: string,
) {
  const res = await consoleCall(server, "POST", "/ops/api/login", {
    body: code === undefined ? { email, password } : { email, password, code },
    ...(device ? { cookie: device } : {}),
  });
  const setCookie = setCookieLine(res.headers, "payintake_ops");
  const setDeviceCookie = setCookieLine(res.headers, "payintake_device");
  return {
    res,
    cookie: setCookie.split(";")[0] ?? "",
    csrf: res.json?.csrf_token as string,
    setCookie,
    device: setDeviceCookie.split(";")[0] ?? "",
    setDeviceCookie,
  };
}
