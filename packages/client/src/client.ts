import { newNonce, signRequest } from "./signing.js";

/**
 * The payintake merchant API from Node 20+: every request signed, every answer a Result that must
 * be checked (`ok`), legacy firms' HTTP-200 rejections read from `success` like any other, and the
 * contract's safe retry built into createDeposit: after a timeout, ask by reference; found → use
 * it; not found → send again with the same reference.
 */
export interface ClientOptions {
  /** e.g. https://pay.example.com (no trailing /paymentapi). */
  baseUrl: string;
  apiKey: string;
  secretKey: string;
  /** Per request; the contract asks for at least 30 s (a deposit may take ~20 s on fallback). */
  timeoutMs?: number;
  /** How many times createDeposit asks-then-resends after timeouts before giving up (default 3). */
  recoveryAttempts?: number;
  fetch?: typeof fetch;
}

export type ErrorCode =
  | "validation"
  | "authentication"
  | "rate_limited"
  | "duplicate_reference"
  | "pending_exists"
  | "deposits_closed"
  | "withdrawals_closed"
  | "user_banned"
  | "amount_out_of_limits"
  | "no_account"
  | "channel_declined"
  | "callback_url"
  | "not_found"
  | "conflict"
  | "server"
  | "timeout"
  | "network";

export interface ApiError {
  code: ErrorCode;
  /** The server's message (Turkish for business rejections, as the contract has them). */
  message: string;
  /** 0 when no answer came (timeout, network); 200 for a legacy firm's rejection. */
  status: number;
}

export type Result<T> = { ok: true; value: T } | { ok: false; error: ApiError };

export interface Payer {
  bank_code: string;
  first_name: string;
  last_name: string;
  middle_name?: string;
  username: string;
  user_id: string;
  national_id?: string;
}

export interface DepositInput extends Payer {
  /** The merchant's own id; the key of safe retries: never change it for a retry. */
  reference: string;
  /** Decimal string, two decimals at most: "150.00". */
  amount: string;
  method?: "fast" | "eft" | "havale";
  callbackUrl?: string;
}

export interface HostedDepositInput extends Payer {
  reference: string;
  method?: "fast" | "eft" | "havale";
  return_url?: string;
  callbackUrl?: string;
}

export interface WithdrawalInput extends Payer {
  reference: string;
  amount: string;
  iban?: string;
  /** How the payout is sent; fast when left out. */
  method?: "fast" | "eft" | "havale";
  callbackUrl?: string;
}

/**
 * `T` with no key beyond `Shape`'s. The API accepts a field it does not know and ignores it, so a
 * misspelt optional field (`returnUrl`, `nationalid`) would be lost without a word: the request
 * methods take `Exact<…>`, and TypeScript refuses such a key at compile time, in an object built
 * beforehand as well as in a literal (where its own excess-property check already would).
 */
export type Exact<Shape, T extends Shape> = T & Record<Exclude<keyof T, keyof Shape>, never>;

export interface Withdrawal {
  accepted: true;
  /** True when the answer was lost and the withdrawal was found by its reference instead. */
  recovered: boolean;
}

export interface Deposit {
  assigned_bank_name: string;
  assigned_holder_name: string;
  assigned_iban: string;
  /** True when the answer was lost and the deposit was found by its reference instead. */
  recovered: boolean;
}

export interface Transaction {
  id: number;
  reference: string;
  type: "deposit" | "withdrawal";
  status: "pending" | "approved" | "rejected";
  /** Two decimals, as text: "150.00" (the wire has a JSON number; it is kept exact here). */
  amount: string;
  method: "fast" | "eft" | "havale";
  first_name: string;
  last_name: string;
  middle_name?: string;
  username: string;
  user_id: string;
  national_id: string;
  bank_code: string;
  assigned_bank_name?: string;
  assigned_holder_name?: string;
  assigned_iban?: string;
  iban?: string;
  created_at: string;
  updated_at: string;
}

/** Your firm's balance (GET /paymentapi/v1/balance): lira as exact text, signed ("1234.50"). */
export interface Balance {
  /** What the service owes your firm: deposits less commissions, less withdrawals paid or on their way. */
  balance: string;
  /** Withdrawals that left the balance and are not yet seen leaving the bank. */
  in_transit: string;
  /** The balance less what payouts in batches not yet sent hold back. */
  available: string;
  currency: "TRY";
  /** The moment the figures are of (ISO 8601). */
  as_of: string;
}

export type BalanceMovementType =
  | "deposit"
  | "withdrawal_sent"
  | "withdrawal_paid"
  | "withdrawal_returned"
  | "settlement"
  | "adjustment"
  | "opening_balance"
  | "correction"
  | "other";

/** One change of your balance: `net` = `amount` − `fee`. */
export interface BalanceMovement {
  id: number;
  type: BalanceMovementType;
  /** Your transaction it belongs to; null for one of no transaction (a settlement, an adjustment). */
  transaction_id: number | null;
  /** That transaction's reference, yours; null with `transaction_id`. */
  reference: string | null;
  /** Gross, before the commission (a withdrawal negative). */
  amount: string;
  /** The commission (negative when one was given back). */
  fee: string;
  net: string;
  at: string;
}

/** One Türkiye day of your balance (GET /paymentapi/v1/balance/days/{date}): a page of it. */
export interface BalanceDay {
  date: string;
  /** Each total is signed as it moved the balance: `opening` plus them is `closing`. */
  opening: string;
  deposits: string;
  withdrawals: string;
  commissions: string;
  returns: string;
  settlements: string;
  adjustments: string;
  opening_balance: string;
  /** Only when not zero. */
  other?: string;
  closing: string;
  currency: "TRY";
  in_transit: { opening: string; closing: string };
  movements: BalanceMovement[];
  /** Pass it as `after` for the next page; null on the day's last page. */
  next: string | null;
}

export interface BalanceOptions {
  /** A past moment: the figures as they stood then. */
  at?: Date | string;
}

export interface BalanceDayOptions {
  /** The `next` of the page before. */
  after?: string;
  /** Movements on a page: 100 unless given, at most 500. */
  limit?: number;
}

/** Türkiye's calendar day (UTC+03:00 all year) of a moment: the days the balance is counted in. */
function turkeyDay(at: Date): string {
  return new Date(at.getTime() + 3 * 3_600_000).toISOString().slice(0, 10);
}

/** A query string of the values given; the signature covers the path alone. */
function queryOf(values: Record<string, string | number | undefined>): string {
  const given = Object.entries(values).filter((e): e is [string, string | number] => e[1] !== undefined);
  return given.length === 0 ? "" : `?${new URLSearchParams(given.map(([k, v]) => [k, String(v)]))}`;
}

const CODES: Record<string, ErrorCode> = {
  "Bu islem numarasi zaten kullanilmis": "duplicate_reference",
  "Halihazirda bekleyen talebiniz var": "pending_exists",
  "Yatırım şu anda kapalı": "deposits_closed",
  "Çekim şu anda kapalı": "withdrawals_closed",
  "Kullanıcı yasaklı": "user_banned",
  "Yatırım tutarı limit dışında": "amount_out_of_limits",
  "Bu tutar icin uygun hesap yok": "no_account",
  "Ödeme kanalı talebi kabul etmedi": "channel_declined",
  "transaction not found": "not_found",
  "Too many requests": "rate_limited",
};

function codeOf(status: number, message: string): ErrorCode {
  const known = CODES[message];
  if (known) return known;
  if (message.startsWith("Validation failed") || message.startsWith("return_url")) return "validation";
  if (message.includes("Callback URL") || message.includes("X-Callback-URL")) return "callback_url";
  if (status === 401 || status === 403) return "authentication";
  if (status === 404) return "not_found";
  if (status === 409) return "conflict";
  return status >= 500 ? "server" : "validation";
}

/** JSON.parse that keeps `"amount": 150.00` as the text "150.00" (a float would lose the zeros). */
function parseKeepingAmounts(text: string): Record<string, unknown> {
  return JSON.parse(text.replace(/"amount":(-?\d+(?:\.\d+)?)/g, '"amount":"$1"')) as Record<string, unknown>;
}

class Timeout extends Error {}

/** "150", "150.0" and "150.00" are one amount; compared as text, never as floats. */
function sameAmount(a: string, b: string): boolean {
  const norm = (v: string) => {
    const [whole = "", frac = ""] = v.trim().split(".");
    return `${whole.replace(/^0+(?=\d)/, "")}.${`${frac}00`.slice(0, 2)}`;
  };
  return norm(a) === norm(b);
}

const decided = (json: Record<string, unknown>) => ({
  status: json.status as "approved" | "rejected",
  amount: String(json.amount),
  callback_id: Number(json.callback_id),
});

export class PayintakeClient {
  readonly #opts: Required<Omit<ClientOptions, "fetch">> & { fetch: typeof fetch };

  constructor(options: ClientOptions) {
    this.#opts = {
      timeoutMs: 30_000,
      recoveryAttempts: 3,
      fetch: globalThis.fetch,
      ...options,
      baseUrl: options.baseUrl.replace(/\/+$/, ""),
    };
  }

  /** Direct mode: the account to show the payer, or why not. Safe to call again with one reference. */
  async createDeposit<T extends DepositInput>(input: Exact<DepositInput, T>): Promise<Result<Deposit>> {
    const { callbackUrl, ...body } = input;
    return this.#createOnce<Deposit>(
      "/paymentapi/v1/deposits",
      body,
      callbackUrl,
      input.reference,
      (json) => ({
        assigned_bank_name: String(json.assigned_bank_name),
        assigned_holder_name: String(json.assigned_holder_name),
        assigned_iban: String(json.assigned_iban),
        recovered: false,
      }),
      // Only a deposit of this payer and amount with an account is one to show this payer.
      (tx) =>
        tx.type === "deposit" &&
        tx.user_id === input.user_id &&
        sameAmount(tx.amount, input.amount) &&
        tx.assigned_iban
          ? {
              assigned_bank_name: tx.assigned_bank_name ?? "",
              assigned_holder_name: tx.assigned_holder_name ?? "",
              assigned_iban: tx.assigned_iban ?? "",
              recovered: true,
            }
          : undefined,
    );
  }

  /**
   * A payout request; operators decide it. Safe to call again with one reference, like deposits: a
   * lost answer is recovered by the reference, so a retry never reads as "refused" a withdrawal
   * that was in fact created (which could pay a user twice).
   */
  async createWithdrawal<T extends WithdrawalInput>(
    input: Exact<WithdrawalInput, T>,
  ): Promise<Result<Withdrawal>> {
    const { callbackUrl, ...body } = input;
    return this.#createOnce<Withdrawal>(
      "/paymentapi/v1/withdrawals",
      body,
      callbackUrl,
      input.reference,
      () => ({ accepted: true, recovered: false }),
      (tx) =>
        tx.type !== "deposit" && tx.user_id === input.user_id && sameAmount(tx.amount, input.amount)
          ? { accepted: true, recovered: true }
          : undefined,
    );
  }

  /**
   * Sends a create request; when its answer is lost (timeout, connection cut, a gateway's 502 to
   * 504), looks the transaction up by its reference: found and `mine` → that one (`recovered`);
   * not found → sends again with the same reference (a new nonce), up to `recoveryAttempts` times.
   * The server refuses a second transaction with one reference, so nothing is created twice.
   */
  async #createOnce<T>(
    path: string,
    body: unknown,
    callbackUrl: string | undefined,
    reference: string,
    read: (json: Record<string, unknown>) => T,
    mine: (tx: Transaction) => T | undefined,
  ): Promise<Result<T>> {
    for (let attempt = 0; ; attempt++) {
      const sent = await this.#send("POST", path, body, callbackUrl).then(
        (answer) => ({ answer }),
        (lost: unknown) => ({ lost }),
      );
      // A gateway's 502/503/504 (or a page that is not ours) says nothing of what happened behind it.
      const lost = "lost" in sent || (sent.answer.status >= 502 && sent.answer.status <= 504);
      if (!lost && "answer" in sent) {
        const answer = this.#result<T>(sent.answer, read);
        // A resend that meets the first send's transaction: look it up below. On the first send the
        // reference really was used before: that is the caller's to know.
        if (answer.ok || answer.error.code !== "duplicate_reference" || attempt === 0) return answer;
      } else if (attempt >= this.#opts.recoveryAttempts) {
        return {
          ok: false,
          error: "lost" in sent ? this.#lost(sent.lost) : this.#lostStatus(sent.answer.status),
        };
      }
      // The answer was lost (or the resend met the first one): does the transaction exist?
      const found = await this.getTransactionByReference(reference);
      if (found.ok) {
        const value = mine(found.value);
        return value === undefined
          ? {
              ok: false,
              error: {
                code: "duplicate_reference",
                message: "Bu islem numarasi zaten kullanilmis",
                status: 409,
              },
            }
          : { ok: true, value };
      }
      // Not created, or the look-up's own answer lost too (still unknown): the same reference may be
      // sent again; the server never makes a second transaction of it.
      const unknown = found.error.code === "timeout" || found.error.code === "network";
      if ((found.error.code !== "not_found" && !unknown) || attempt >= this.#opts.recoveryAttempts)
        return found;
    }
  }

  /** Hosted mode: the URL to send the payer to; the amount is entered on the page. */
  async createHostedDeposit<T extends HostedDepositInput>(
    input: Exact<HostedDepositInput, T>,
  ): Promise<Result<{ payment_url: string }>> {
    const { callbackUrl, ...body } = input;
    return this.#call(
      "POST",
      "/paymentapi/v1/deposits",
      { ...body, redirect: true },
      callbackUrl,
      // Without PAYMENT_PAGE_URL the server answers a path: made absolute against the API's base
      // URL, so a redirect never lands on the merchant's own host.
      (json) => ({
        payment_url: new URL(String(json.payment_url), `${this.#opts.baseUrl}/`).href,
      }),
    );
  }

  /**
   * Test helpers, for sandbox firms only (a live firm gets `not_found`): decide one's own pending
   * transaction as an operator would, or have its callback sent again.
   */
  readonly sandbox = {
    approve: (id: number, opts: { amount?: string } = {}) =>
      this.#call("POST", `/paymentapi/v1/sandbox/transactions/${id}/approve`, opts, undefined, decided),
    reject: (id: number, opts: { note?: string } = {}) =>
      this.#call("POST", `/paymentapi/v1/sandbox/transactions/${id}/reject`, opts, undefined, decided),
    resendCallback: (id: number) =>
      this.#call(
        "POST",
        `/paymentapi/v1/sandbox/transactions/${id}/callback`,
        undefined,
        undefined,
        (json) => ({
          callback_id: Number(json.callback_id),
        }),
      ),
  };

  async getTransaction(id: number): Promise<Result<Transaction>> {
    return this.#call(
      "GET",
      `/paymentapi/v1/transactions/${id}`,
      undefined,
      undefined,
      (json) => json.data as Transaction,
    );
  }

  async getTransactionByReference(reference: string): Promise<Result<Transaction>> {
    const path = `/paymentapi/v1/transactions/by-reference/${encodeURIComponent(reference)}`;
    return this.#call("GET", path, undefined, undefined, (json) => json.data as Transaction);
  }

  /**
   * Your firm's balance now, or as of a past moment (`at`). The balance routes have a rate limit of
   * their own (5 a second), so polling them never slows your deposits.
   */
  async getBalance<T extends BalanceOptions>(options?: Exact<BalanceOptions, T>): Promise<Result<Balance>> {
    const at = options?.at instanceof Date ? options.at.toISOString() : options?.at;
    return this.#call(
      "GET",
      "/paymentapi/v1/balance",
      undefined,
      undefined,
      (json) => json.data as Balance,
      queryOf({ at }),
    );
  }

  /**
   * One Türkiye day of your balance (`YYYY-MM-DD`, or the Türkiye day of a Date): its totals and a
   * page of its movements. Pass `next` back as `after` until it is null.
   */
  async getBalanceDay<T extends BalanceDayOptions>(
    date: string | Date,
    options?: Exact<BalanceDayOptions, T>,
  ): Promise<Result<BalanceDay>> {
    const day = date instanceof Date ? turkeyDay(date) : date;
    return this.#call(
      "GET",
      `/paymentapi/v1/balance/days/${encodeURIComponent(day)}`,
      undefined,
      undefined,
      (json) => json.data as BalanceDay,
      queryOf({ after: options?.after, limit: options?.limit }),
    );
  }

  async #call<T>(
    method: "GET" | "POST",
    path: string,
    body: unknown,
    callbackUrl: string | undefined,
    read: (json: Record<string, unknown>) => T,
    query = "",
  ): Promise<Result<T>> {
    try {
      return this.#result(await this.#send(method, path, body, callbackUrl, query), read);
    } catch (e) {
      return { ok: false, error: this.#lost(e) };
    }
  }

  #result<T>(
    answer: { status: number; json: Record<string, unknown> },
    read: (json: Record<string, unknown>) => T,
  ): Result<T> {
    // `success` decides, not the status: legacy firms get business rejections with HTTP 200.
    if (answer.json.success === true) return { ok: true, value: read(answer.json) };
    const message = typeof answer.json.message === "string" ? answer.json.message : `HTTP ${answer.status}`;
    return { ok: false, error: { code: codeOf(answer.status, message), message, status: answer.status } };
  }

  #lostStatus(status: number): ApiError {
    return { code: "network", message: `HTTP ${status} from a gateway: the outcome is unknown`, status };
  }

  #lost(e: unknown): ApiError {
    return e instanceof Timeout
      ? { code: "timeout", message: `no answer within ${this.#opts.timeoutMs} ms`, status: 0 }
      : { code: "network", message: e instanceof Error ? e.message : String(e), status: 0 };
  }

  /** `query` is sent after the path and never signed: the signature covers the path alone. */
  async #send(
    method: "GET" | "POST",
    path: string,
    body: unknown,
    callbackUrl: string | undefined,
    query = "",
  ) {
    const text = body === undefined ? "" : JSON.stringify(body);
    const timestamp = String(Math.floor(Date.now() / 1000));
    const nonce = newNonce();
    const headers: Record<string, string> = {
      "x-api-key": this.#opts.apiKey,
      "x-timestamp": timestamp,
      "x-nonce": nonce,
      "x-signature": signRequest(this.#opts.secretKey, { method, path, body: text, timestamp, nonce }),
    };
    if (body !== undefined) headers["content-type"] = "application/json";
    if (callbackUrl) headers["x-callback-url"] = callbackUrl;
    let res: Response;
    let raw: string;
    try {
      res = await this.#opts.fetch(`${this.#opts.baseUrl}${path}${query}`, {
        method,
        headers,
        body: body === undefined ? undefined : text,
        signal: AbortSignal.timeout(this.#opts.timeoutMs),
      });
      raw = await res.text();
    } catch (e) {
      if (e instanceof Error && (e.name === "TimeoutError" || e.name === "AbortError")) throw new Timeout();
      throw e;
    }
    let json: Record<string, unknown>;
    try {
      json = parseKeepingAmounts(raw);
    } catch {
      json = { success: false, message: `HTTP ${res.status}: the answer is not JSON` };
    }
    return { status: res.status, json };
  }
}
