import { randomBytes } from "node:crypto";
import { turkishIbanFor } from "../../src/domain/iban.js";
import { parseAmount } from "../../src/domain/money.js";
import { fromBase32, totpCode, totpStep } from "../../src/operators/totp.js";
import type { Credentials } from "../shared/load.js";
import { BANKS } from "../shared/names.js";
import { adminJson, timedRequest } from "../shared/timed-http.js";
import { type AccountFixture, AUTO_CANCEL_MINUTES, type FirmFixture } from "./rows.js";

/**
 * The empty store made ready through the admin API, as an operator would: a provider that
 * auto-cancels, several firms (one of them a test firm), payment accounts at several banks (some
 * with daily caps) and a console operator with a second factor.
 */
export interface Provisioned {
  firms: (FirmFixture & { name: string; creds: Credentials })[];
  liveAccounts: AccountFixture[];
  sandboxAccount: AccountFixture;
  operator: ConsoleOperator;
}

export interface ConsoleOperator {
  email: string;
  password: string;
  totpSecret: string;
  /** The last time step a code was given for: each is taken once. */
  lastStep: number;
}

export interface ConsoleSession {
  cookie: string;
  csrf: string;
}

const FIRMS = [
  { name: "Ege Dijital", weight: 34, autoCancel: true, sandbox: false },
  { name: "Marmara Oyun", weight: 24, autoCancel: true, sandbox: false },
  { name: "Karadeniz Market", weight: 16, autoCancel: true, sandbox: false },
  { name: "Boğaziçi Spor", weight: 12, autoCancel: false, sandbox: false },
  { name: "Trakya Eğlence", weight: 8, autoCancel: false, sandbox: false },
  { name: "Akdeniz Ödeme", weight: 5, autoCancel: false, sandbox: false },
  { name: "Test Firması", weight: 1, autoCancel: false, sandbox: true },
] as const;

/** Above what a day of the seeded traffic puts on one account: the caps are summed, never reached. */
const DAILY_CAP = "25000000.00";

export async function provision(url: string, token: string): Promise<Provisioned> {
  const provider = await adminJson(url, token, "POST", "/admin/v1/providers", {
    name: "Anadolu Ödeme Platformu",
    kind: "platform",
    auto_cancel_minutes: AUTO_CANCEL_MINUTES,
  });
  const firms: Provisioned["firms"] = [];
  for (const [i, f] of FIRMS.entries()) {
    const webhook = `http://127.0.0.1:9/firm-${i + 1}/callbacks`;
    const made = await adminJson(url, token, "POST", "/admin/v1/firms", {
      name: f.name,
      provider_id: f.autoCancel ? provider.id : null,
      webhook_url: webhook,
      rate_limit_per_second: 100_000,
      // The seeded years leave more pending deposits per firm than the default bound allows.
      max_pending_count: null,
      max_pending_amount: null,
      sandbox: f.sandbox,
    });
    firms.push({ ...f, id: made.id, webhook, creds: { apiKey: made.api_key, secret: made.secret_key } });
  }
  for (const [i, bank] of BANKS.slice(0, 8).entries()) {
    await adminJson(url, token, "POST", "/admin/v1/accounts", {
      bank_name: bank.name,
      holder_name: i % 2 === 0 ? "Ödeme Hizmetleri A.Ş." : "Güvenli Tahsilat Ltd. Şti.",
      iban: turkishIbanFor(`${bank.number}0${String(7_301_000_000_000_000 + i * 7919)}`),
      bank_code: bank.code,
      ...(i < 3 ? { daily_cap: DAILY_CAP } : {}),
    });
  }
  const accounts = (await adminJson(url, token, "GET", "/admin/v1/accounts")) as AccountView[];
  const sandboxAccount = accounts.find((a) => a.sandbox);
  if (!sandboxAccount) throw new Error("no sandbox account: the migrations add one");
  return {
    firms,
    liveAccounts: accounts.filter((a) => !a.sandbox).map(accountFixture),
    sandboxAccount: accountFixture(sandboxAccount),
    operator: await operatorWithSecondFactor(url, token),
  };
}

interface AccountView {
  id: number;
  bank_name: string;
  holder_name: string;
  iban: string;
  daily_cap: string | null;
  sandbox: boolean;
}

function accountFixture(a: AccountView): AccountFixture {
  const cap = a.daily_cap === null ? undefined : parseAmount(a.daily_cap);
  return {
    id: a.id,
    bank_name: a.bank_name,
    holder_name: a.holder_name,
    iban: a.iban,
    daily_cap: cap?.ok ? cap.minor : null,
  };
}

async function operatorWithSecondFactor(url: string, token: string): Promise<ConsoleOperator> {
  const email = "volume@ops.example";
  const password = randomBytes(18).toString("base64url");
  await adminJson(url, token, "POST", "/admin/v1/operators", { email, password, role: "admin" });
  const first = await login(url, { email, password });
  const started = await consoleJson(url, first, "/ops/api/second-factor", undefined);
  const operator = { email, password, totpSecret: started.secret as string, lastStep: 0 };
  await consoleJson(url, first, "/ops/api/second-factor/confirm", { password, code: nextCode(operator) });
  return operator;
}

/** A code for a time step not used yet: the current one, or the next, which is accepted too. */
function nextCode(operator: ConsoleOperator): string {
  const step = Math.max(totpStep(Date.now()), operator.lastStep + 1);
  operator.lastStep = step;
  return totpCode(fromBase32(operator.totpSecret), step);
}

/** Signs the operator in with password and code, as the console's sign-in page does. */
export async function signIn(url: string, operator: ConsoleOperator): Promise<ConsoleSession> {
  // Both the current step and the next are accepted: wait while the next one is taken already.
  while (operator.lastStep > totpStep(Date.now())) await new Promise((r) => setTimeout(r, 1_000));
  return login(url, { email: operator.email, password: operator.password, code: nextCode(operator) });
}

async function login(url: string, body: Record<string, string>): Promise<ConsoleSession> {
  const res = await timedRequest(
    url,
    "POST",
    "/ops/api/login",
    { "content-type": "application/json" },
    JSON.stringify(body),
    true,
  );
  if (res.status !== 200) throw new Error(`console sign-in answered ${res.status}: ${res.text}`);
  const raw = res.headers["set-cookie"];
  const lines = raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
  const cookie = lines.find((l) => l.startsWith("payintake_ops="))?.split(";")[0];
  if (!cookie) throw new Error("console sign-in set no session cookie");
  return { cookie, csrf: JSON.parse(res.text).csrf_token as string };
}

async function consoleJson(url: string, session: ConsoleSession, path: string, body: unknown): Promise<any> {
  const res = await timedRequest(
    url,
    "POST",
    path,
    {
      cookie: session.cookie,
      "x-csrf-token": session.csrf,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    body === undefined ? undefined : JSON.stringify(body),
    true,
  );
  if (res.status !== 200) throw new Error(`POST ${path} answered ${res.status}: ${res.text}`);
  return JSON.parse(res.text);
}
