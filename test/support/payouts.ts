import { request } from "undici";
import { expect } from "vitest";
import { consoleLogin } from "./console.js";
import type { TestServer } from "./harness.js";
import { send, type TestFirm, withdrawalBody } from "./merchant.js";

/** Payouts as the tests drive them: withdrawals made by a firm, operators signed in, batches. */
export const PAYEE_IBAN = "TR330006100519786457841326";

/** A pending withdrawal through the signed API (it must answer 200): its transaction id. */
export async function pendingWithdrawal(
  server: TestServer,
  firm: TestFirm,
  overrides: Record<string, unknown> = {},
): Promise<number> {
  const body = withdrawalBody(overrides);
  const res = await send(server, firm, { path: "/paymentapi/v1/withdrawals", body });
  if (res.status !== 200) throw new Error(`withdrawal answered ${res.status}: ${res.text}`);
  const q = await send(server, firm, {
    path: `/paymentapi/v1/transactions/by-reference/${body.reference as string}`,
  });
  return q.json.data.id as number;
}

/** Many pending withdrawals, a few at a time: their ids in the order made. */
export async function pendingWithdrawals(
  server: TestServer,
  firm: TestFirm,
  n: number,
  overrides: Record<string, unknown> = {},
): Promise<number[]> {
  const ids: number[] = [];
  for (let i = 0; i < n; i += 20) {
    const chunk = Array.from({ length: Math.min(20, n - i) }, () =>
      pendingWithdrawal(server, firm, overrides),
    );
    ids.push(...(await Promise.all(chunk)));
  }
  // By id, the order the store made them in (asked at once, they are not made in the order asked),
  // which is the order a batch takes them in.
  return ids.sort((a, b) => a - b);
}

/** A signed-in console operator: calls the console's API with its session and CSRF token. */
export interface ConsoleOperator {
  email: string;
  actor: string;
  /** `json` is undefined when the answer is not JSON (a file); `text` is the body. */
  call(
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{ status: number; json: any; text: string; headers: Record<string, unknown> }>;
}

export async function consoleOperator(
  server: TestServer,
  role: "viewer" | "operator" | "admin",
  name: string,
): Promise<ConsoleOperator> {
  const email = `${name}@ops.example`;
  const password = `${name}-password-123`;
  const made = await server.admin("POST", "/admin/v1/operators", { email, role, password });
  expect(made.status, JSON.stringify(made.json)).toBe(201);
  const login = await consoleLogin(server, email, password);
  expect(login.res.status, JSON.stringify(login.res.json)).toBe(200);
  return {
    email,
    actor: `operator:${email}`,
    async call(method, path, body) {
      const res = await request(`${server.url}${path}`, {
        method: method as "GET",
        headers: {
          cookie: login.cookie,
          "x-csrf-token": login.csrf,
          ...(body === undefined ? {} : { "content-type": "application/json" }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.body.text();
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        json = undefined;
      }
      return { status: res.statusCode, json, text, headers: res.headers };
    },
  };
}

/** A batch's file as the admin API gives it: the bytes and the headers. */
export async function adminFile(server: TestServer, batch: number, format: string) {
  const res = await request(
    `${server.url}/admin/v1/payouts/batches/${batch}/file?format=${encodeURIComponent(format)}&actor=files`,
    { headers: { authorization: `Bearer ${server.adminToken}` } },
  );
  const bytes = Buffer.from(await res.body.arrayBuffer());
  return { status: res.statusCode, bytes, headers: res.headers };
}

/** The notices a file came with (`x-payout-notices`), decoded, `{code, message}` each; [] when none. */
export function noticesOf(headers: Record<string, unknown>): { code: string; message: string }[] {
  const raw = headers["x-payout-notices"];
  return typeof raw === "string"
    ? (JSON.parse(decodeURIComponent(raw)) as { code: string; message: string }[])
    : [];
}

/** Every value of an XML element in a file, in order. */
export function xmlValues(xml: string, element: string): string[] {
  return [...xml.matchAll(new RegExp(`<${element}>([^<]*)</${element}>`, "g"))].map((m) => m[1] as string);
}
