import { randomBytes } from "node:crypto";
import { request } from "undici";
import { signRequest } from "../../src/crypto/signature.js";
import type { TestServer } from "./harness.js";

/** A merchant as the tests play it: a firm's credentials and a client that signs like the contract says. */
export interface TestFirm {
  id: number;
  apiKey: string;
  secret: string;
}

export interface SendOptions {
  method?: "GET" | "POST";
  path: string;
  /** An object is sent as JSON; a string or Buffer is sent as the exact bytes. */
  body?: unknown;
  /** Overrides for the signed headers, applied after signing unless signWith says otherwise. */
  headers?: Record<string, string | undefined>;
  timestamp?: string;
  nonce?: string;
  /** Sign a different path, body or secret than the one sent (tamper tests). */
  signPath?: string;
  signBody?: string | Buffer;
  signSecret?: string;
}

export interface Answer {
  status: number;
  text: string;
  json: any;
  headers: Record<string, string | string[] | undefined>;
}

export const newNonce = () => randomBytes(12).toString("hex");

export function bodyBytes(body: unknown): Buffer {
  if (body === undefined) return Buffer.alloc(0);
  if (Buffer.isBuffer(body)) return body;
  if (typeof body === "string") return Buffer.from(body, "utf8");
  return Buffer.from(JSON.stringify(body), "utf8");
}

export async function send(server: TestServer, firm: TestFirm, opts: SendOptions): Promise<Answer> {
  const method = opts.method ?? (opts.body === undefined ? "GET" : "POST");
  const bytes = bodyBytes(opts.body);
  const timestamp = opts.timestamp ?? String(Math.floor(server.clock.now() / 1000));
  const nonce = opts.nonce ?? newNonce();
  const signature = signRequest(opts.signSecret ?? firm.secret, {
    method,
    path: opts.signPath ?? opts.path,
    body: opts.signBody === undefined ? bytes : bodyBytes(opts.signBody),
    timestamp,
    nonce,
  });
  const headers: Record<string, string> = {
    "content-type": "application/json",
    "x-api-key": firm.apiKey,
    "x-signature": signature,
    "x-timestamp": timestamp,
    "x-nonce": nonce,
  };
  for (const [k, v] of Object.entries(opts.headers ?? {})) {
    if (v === undefined) delete headers[k.toLowerCase()];
    else headers[k.toLowerCase()] = v;
  }
  const res = await request(`${server.url}${opts.path}`, {
    method,
    headers,
    body: method === "GET" ? undefined : bytes,
  });
  const text = await res.body.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.statusCode, text, json, headers: res.headers };
}

export interface FirmOptions {
  name?: string;
  webhook_url?: string | null;
  legacy_http?: boolean;
  callback_middle_name?: boolean;
  deposit_min?: string;
  deposit_max?: string;
  provider_id?: number;
  rate_limit_per_second?: number;
  max_pending_count?: number | null;
  max_pending_amount?: string | null;
  max_cap_share?: number | null;
  sandbox?: boolean;
  display_name?: string | null;
  usual_amount_max?: string | null;
  /**
   * Answers and queries of deposits carry `payment_code` (what `paymentCodeOf` reads). Set just
   * after creation: the admin API takes it on update only.
   */
  answer_payment_code?: boolean;
}

export async function createFirm(server: TestServer, opts: FirmOptions = {}): Promise<TestFirm> {
  const { answer_payment_code, ...created } = opts;
  const res = await server.admin("POST", "/admin/v1/firms", {
    name: `Firm ${newNonce().slice(0, 6)}`,
    webhook_url: "http://127.0.0.1:9/callbacks",
    rate_limit_per_second: 10_000,
    ...created,
  });
  if (res.status !== 201) throw new Error(`firm create failed: ${JSON.stringify(res.json)}`);
  if (answer_payment_code !== undefined) {
    const patched = await server.admin("PATCH", `/admin/v1/firms/${res.json.id}`, { answer_payment_code });
    if (patched.status !== 200) throw new Error(`firm update failed: ${JSON.stringify(patched.json)}`);
  }
  return { id: res.json.id, apiKey: res.json.api_key, secret: res.json.secret_key };
}

export async function addAccount(
  server: TestServer,
  opts: {
    bank_name?: string;
    holder_name?: string;
    iban?: string;
    min?: string;
    max?: string;
    daily_cap?: string;
  } = {},
): Promise<{ id: number; bank_name: string; holder_name: string; iban: string }> {
  const res = await server.admin("POST", "/admin/v1/accounts", {
    bank_name: "Ziraat Bankası",
    holder_name: "Ödeme Hizmetleri A.Ş.",
    iban: "TR330006100519786457841326",
    ...opts,
  });
  if (res.status !== 201) throw new Error(`account add failed: ${JSON.stringify(res.json)}`);
  return res.json;
}

let seq = 0;
/** A valid direct deposit body; override any field. */
export function depositBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  seq++;
  return {
    amount: "150.00",
    bank_code: "AKBANK",
    first_name: "Ayşe",
    last_name: "Yılmaz",
    username: "ayse.yilmaz@example.com",
    user_id: `user-${seq}-${newNonce().slice(0, 6)}`,
    reference: `DEP-${seq}-${newNonce().slice(0, 8)}`,
    national_id: "12345678901",
    ...overrides,
  };
}

export function withdrawalBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  seq++;
  return {
    amount: "250.50",
    bank_code: "GARANTI",
    first_name: "Mehmet",
    last_name: "Öztürk",
    username: "+905551112233",
    user_id: `user-${seq}-${newNonce().slice(0, 6)}`,
    reference: `WD-${seq}-${newNonce().slice(0, 8)}`,
    iban: "TR330006100519786457841326",
    ...overrides,
  };
}

/** A transaction's status as the admin API shows it (what the merchant's query would say). */
export async function statusOf(server: TestServer, id: number): Promise<string> {
  return (await server.admin("GET", `/admin/v1/transactions/${id}`)).json.status as string;
}

/** An operator's decision on the firm's transaction of that reference, through the admin API. */
export async function decide(
  server: TestServer,
  firm: TestFirm,
  reference: string,
  decision: "approve" | "reject",
): Promise<void> {
  const q = await send(server, firm, { path: `/paymentapi/v1/transactions/by-reference/${reference}` });
  const res = await server.admin("POST", `/admin/v1/transactions/${q.json.data.id}/${decision}`, {
    actor: "operator:t",
  });
  if (res.status !== 200) throw new Error(`${decision} answered ${res.status}: ${JSON.stringify(res.json)}`);
}

/** A direct deposit through the signed API (it must answer 200), left pending: its transaction id. */
export async function pendingDeposit(
  server: TestServer,
  firm: TestFirm,
  overrides: Record<string, unknown> = {},
): Promise<number> {
  const body = depositBody(overrides);
  const res = await send(server, firm, { path: "/paymentapi/v1/deposits", body });
  if (res.status !== 200) throw new Error(`deposit answered ${res.status}: ${res.text}`);
  const found = await send(server, firm, {
    path: `/paymentapi/v1/transactions/by-reference/${body.reference as string}`,
  });
  return found.json.data.id as number;
}

/**
 * A deposit's payment code as the server gives it to the merchant: the firm's query by id. The code
 * is keyed by the store's own secret (domain/payment-code.ts), so a test learns it as a merchant
 * does; the firm must have been made with `answer_payment_code: true`.
 */
export async function paymentCodeOf(server: TestServer, firm: TestFirm, id: number): Promise<string> {
  const q = await send(server, firm, { path: `/paymentapi/v1/transactions/${id}` });
  const code = q.json?.data?.payment_code;
  if (typeof code !== "string")
    throw new Error(
      `no payment_code for transaction ${id} (is the firm made with answer_payment_code: true?): ${q.text}`,
    );
  return code;
}

/**
 * A direct deposit left pending, as a statement line would pay it: its id, when it was made and its
 * payment code, all from the firm's query by reference, as a merchant learns them (the firm must
 * have been made with `answer_payment_code: true`).
 */
export async function depositWithCode(
  server: TestServer,
  firm: TestFirm,
  overrides: Record<string, unknown> = {},
): Promise<{ id: number; at: number; code: string }> {
  const body = depositBody(overrides);
  const res = await send(server, firm, { path: "/paymentapi/v1/deposits", body });
  if (res.status !== 200) throw new Error(`deposit answered ${res.status}: ${res.text}`);
  const q = await send(server, firm, {
    path: `/paymentapi/v1/transactions/by-reference/${body.reference as string}`,
  });
  return {
    id: q.json.data.id as number,
    at: Date.parse(q.json.data.created_at),
    code: q.json.data.payment_code as string,
  };
}

/**
 * A hosted deposit (redirect mode, no amount: the payer types it on the page): its page's full
 * address, its token, its reference and the body sent.
 */
export async function hostedSession(
  server: TestServer,
  firm: TestFirm,
  overrides: Record<string, unknown> = {},
) {
  const body = depositBody({ redirect: true, amount: undefined, ...overrides });
  const res = await send(server, firm, { path: "/paymentapi/v1/deposits", body });
  if (res.status !== 200) throw new Error(`hosted deposit answered ${res.status}: ${res.text}`);
  const path = res.json.payment_url as string;
  return {
    url: `${server.url}${path}`,
    token: path.split("/").pop() as string,
    reference: String(body.reference),
    body,
  };
}
