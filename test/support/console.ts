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

export async function consoleLogin(server: TestServer, email: string, password: string, code?: string) {
  const res = await consoleCall(server, "POST", "/ops/api/login", {
    body: code === undefined ? { email, password } : { email, password, code },
  });
  const setCookie = String(res.headers["set-cookie"] ?? "");
  return { res, cookie: setCookie.split(";")[0] ?? "", csrf: res.json?.csrf_token as string, setCookie };
}
