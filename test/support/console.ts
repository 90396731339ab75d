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
  opts: { cookie?: string; csrf?: string; body?: unknown } = {},
) {
  const res = await request(`${server.url}${path}`, {
    method: method as "GET",
    headers: {
      ...(opts.body === undefined ? {} : { "content-type": "application/json" }),
      ...(opts.cookie ? { cookie: opts.cookie } : {}),
      ...(opts.csrf ? { "x-csrf-token": opts.csrf } : {}),
    },
    body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
  });
  const text = await res.body.text();
  const json: any = text ? JSON.parse(text) : undefined;
  return { status: res.statusCode, json, headers: res.headers };
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
  const raw = res.headers["set-cookie"];
  const lines = raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
  const setCookie = lines.find((l) => l.startsWith("payintake_ops=")) ?? "";
  const setDeviceCookie = lines.find((l) => l.startsWith("payintake_device=")) ?? "";
  return {
    res,
    cookie: setCookie.split(";")[0] ?? "",
    csrf: res.json?.csrf_token as string,
    setCookie,
    device: setDeviceCookie.split(";")[0] ?? "",
    setDeviceCookie,
  };
}
