/**
 * Operator commands: each maps argv to one call of the operator API and prints one JSON object.
 * Flags follow the issue tracker's spelling (--deposit-min, --webhook-url ...).
 */
import { type AdminClient, FileBody } from "./admin-client.js";

export { actor, type Flags, type Handler, UsageError } from "./command-args.js";

import {
  actor,
  bool,
  clearable,
  clearableInt,
  defined,
  type Flags,
  type Handler,
  id,
  int,
  need,
  openClosed,
  str,
  UsageError,
} from "./command-args.js";
import { LEDGER_COMMANDS, LEDGER_SYNTAX } from "./ledger-commands.js";
import { PAYOUT_COMMANDS, PAYOUT_SYNTAX, RawOutput } from "./payout-commands.js";
import { closest } from "./suggest.js";

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

const wrap = (key: string) => async (p: Promise<{ status: number; json: unknown }>) => {
  const r = await p;
  return r.status === 200 && Array.isArray(r.json) ? { status: r.status, json: { [key]: r.json } } : r;
};

export const COMMANDS: Record<string, Handler> = {
  "provider create": (c, _p, f) =>
    c.call(
      "POST",
      "/admin/v1/providers",
      defined({
        name: need(f, "name"),
        kind: str(f, "kind"),
        callback_url: str(f, "callback-url"),
        auto_cancel_minutes: int(f, "auto-cancel-minutes"),
      }),
    ),
  "provider list": (c) => wrap("providers")(c.call("GET", "/admin/v1/providers")),
  "provider update": (c, p, f) =>
    c.call(
      "PATCH",
      `/admin/v1/providers/${id(p)}`,
      defined({
        callback_url: str(f, "callback-url"),
        auto_cancel_minutes: int(f, "auto-cancel-minutes"),
      }),
    ),
  "firm create": (c, _p, f) =>
    c.call(
      "POST",
      "/admin/v1/firms",
      defined({
        name: need(f, "name"),
        provider_id: int(f, "provider"),
        webhook_url: str(f, "webhook-url"),
        legacy_http: bool(f, "legacy-http"),
        callback_middle_name: bool(f, "callback-middle-name"),
        deposit_min: str(f, "deposit-min"),
        deposit_max: str(f, "deposit-max"),
        rate_limit_per_second: int(f, "rate-limit"),
        max_pending_count: clearableInt(f, "max-pending-count"),
        max_pending_amount: clearable(f, "max-pending-amount"),
        max_cap_share: clearableInt(f, "max-cap-share"),
        display_name: str(f, "display-name"),
        usual_amount_max: str(f, "usual-amount-max"),
        sandbox: bool(f, "sandbox"),
      }),
    ),
  "firm update": (c, p, f) =>
    c.call(
      "PATCH",
      `/admin/v1/firms/${id(p)}`,
      defined({
        deposits: openClosed(f, "deposits"),
        withdrawals: openClosed(f, "withdrawals"),
        active: bool(f, "active"),
        webhook_url: str(f, "webhook-url"),
        legacy_http: bool(f, "legacy-http"),
        callback_middle_name: bool(f, "callback-middle-name"),
        deposit_min: clearable(f, "deposit-min"),
        deposit_max: clearable(f, "deposit-max"),
        rate_limit_per_second: int(f, "rate-limit"),
        reconcile_auto: bool(f, "reconcile-auto"),
        reconcile_by_name: bool(f, "reconcile-by-name"),
        answer_payment_code: bool(f, "answer-payment-code"),
        max_pending_count: clearableInt(f, "max-pending-count"),
        max_pending_amount: clearable(f, "max-pending-amount"),
        max_cap_share: clearableInt(f, "max-cap-share"),
        display_name: clearable(f, "display-name"),
        usual_amount_max: clearable(f, "usual-amount-max"),
        commission_deposit: str(f, "commission-deposit"),
        commission_withdrawal: str(f, "commission-withdrawal"),
        commission_deposit_min: clearable(f, "commission-deposit-min"),
        commission_deposit_max: clearable(f, "commission-deposit-max"),
        commission_withdrawal_min: clearable(f, "commission-withdrawal-min"),
        commission_withdrawal_max: clearable(f, "commission-withdrawal-max"),
        commission_from: str(f, "commission-from"),
        overdraft: clearable(f, "overdraft"),
      }),
    ),
  "firm rotate-secret": (c, p) => c.call("POST", `/admin/v1/firms/${id(p)}/rotate-secret`),
  "firm move-callbacks": (c, p, f) =>
    c.call("POST", `/admin/v1/firms/${id(p)}/move-callbacks`, { from: need(f, "from") }),
  "firm list": (c) => wrap("firms")(c.call("GET", "/admin/v1/firms")),
  "firm show": (c, p) => c.call("GET", `/admin/v1/firms/${id(p)}`),
  "account add": (c, _p, f) =>
    c.call(
      "POST",
      "/admin/v1/accounts",
      defined({
        bank_name: need(f, "bank-name"),
        holder_name: need(f, "holder-name"),
        iban: need(f, "iban"),
        min: str(f, "min"),
        max: str(f, "max"),
        channel: str(f, "channel"),
        bank_code: str(f, "bank-code"),
        daily_cap: str(f, "daily-cap"),
      }),
    ),
  "account update": (c, p, f) =>
    c.call(
      "PATCH",
      `/admin/v1/accounts/${id(p)}`,
      defined({
        active: bool(f, "active"),
        min: clearable(f, "min"),
        max: clearable(f, "max"),
        channel: clearable(f, "channel"),
        bank_code: clearable(f, "bank-code"),
        daily_cap: clearable(f, "daily-cap"),
      }),
    ),
  "channel create": (c, _p, f) =>
    c.call(
      "POST",
      "/admin/v1/channels",
      defined({
        code: need(f, "code"),
        kind: need(f, "kind"),
        url: str(f, "url"),
        timeout_ms: int(f, "timeout-ms"),
      }),
    ),
  "channel update": (c, p, f) => {
    const code = p[0];
    if (!code) throw new UsageError("a channel code is required");
    return c.call(
      "PATCH",
      `/admin/v1/channels/${encodeURIComponent(code)}`,
      defined({ url: str(f, "url"), timeout_ms: int(f, "timeout-ms"), active: bool(f, "active") }),
    );
  },
  "channel list": (c) => wrap("channels")(c.call("GET", "/admin/v1/channels")),
  "channel rotate-secret": (c, p) => {
    const code = p[0];
    if (!code) throw new UsageError("a channel code is required");
    return c.call("POST", `/admin/v1/channels/${encodeURIComponent(code)}/rotate-secret`);
  },
  "operator create": async (c, _p, f) => {
    // The words before standard input: a missing --email is said at once, not after the password.
    const email = need(f, "email");
    const role = need(f, "role");
    // --password-stdin reads the password from standard input; otherwise one is generated and shown once.
    const password = f["password-stdin"] === true ? (await readStdin()).trim() : undefined;
    return c.call("POST", "/admin/v1/operators", defined({ email, role, password }));
  },
  "operator reset-2fa": (c, _p, f) =>
    c.call("POST", "/admin/v1/operators/reset-second-factor", { email: need(f, "email") }),
  "account list": (c) => wrap("accounts")(c.call("GET", "/admin/v1/accounts")),
  "user ban": (c, _p, f) =>
    c.call("PUT", `/admin/v1/firms/${int(f, "firm") ?? need(f, "firm")}/bans`, {
      user_id: need(f, "user-id"),
    }),
  "user unban": (c, _p, f) =>
    c.call("DELETE", `/admin/v1/firms/${int(f, "firm") ?? need(f, "firm")}/bans`, {
      user_id: need(f, "user-id"),
    }),
  "tx list": (c, _p, f) => {
    const q = new URLSearchParams(
      defined({ firm: str(f, "firm"), status: str(f, "status"), limit: str(f, "limit") }) as Record<
        string,
        string
      >,
    );
    return wrap("transactions")(c.call("GET", `/admin/v1/transactions${q.size ? `?${q}` : ""}`));
  },
  "tx show": (c, p) => c.call("GET", `/admin/v1/transactions/${id(p)}`),
  "tx approve": (c, p, f) =>
    c.call(
      "POST",
      `/admin/v1/transactions/${id(p)}/approve`,
      defined({ actor: actor(f), note: str(f, "note"), amount: str(f, "amount") }),
    ),
  "tx reject": (c, p, f) =>
    c.call(
      "POST",
      `/admin/v1/transactions/${id(p)}/reject`,
      defined({ actor: actor(f), note: str(f, "note") }),
    ),
  "callback list": (c, _p, f) => {
    const q = new URLSearchParams(
      defined({ status: str(f, "status"), firm: str(f, "firm"), limit: str(f, "limit") }) as Record<
        string,
        string
      >,
    );
    return wrap("callbacks")(c.call("GET", `/admin/v1/callbacks${q.size ? `?${q}` : ""}`));
  },
  "callback show": (c, p) => c.call("GET", `/admin/v1/callbacks/${id(p)}`),
  "statement import": async (c, p, f) => {
    const account = int(f, "account") ?? need(f, "account");
    const file = p[0];
    if (!file) throw new UsageError("the statement file is required");
    const r = await c.call("POST", `/admin/v1/accounts/${account}/statements`, new FileBody(file));
    return r.status === 200 ? { status: 200, json: importCounts(r.json) } : r;
  },
  "statement sample": async (c, _p, f) => {
    const account = int(f, "account") ?? need(f, "account");
    const q = new URLSearchParams(defined({ format: str(f, "format") }) as Record<string, string>);
    const r = await c.call("GET", `/admin/v1/accounts/${account}/statement-sample${q.size ? `?${q}` : ""}`);
    return r.status === 200 ? { status: 200, json: sampleFile(r.json) } : r;
  },
  "statement list": (c, _p, f) => {
    const q = new URLSearchParams(
      defined({ account: str(f, "account"), state: str(f, "state"), limit: str(f, "limit") }) as Record<
        string,
        string
      >,
    );
    return wrap("lines")(c.call("GET", `/admin/v1/statement-lines${q.size ? `?${q}` : ""}`));
  },
  "statement show": (c, p) => c.call("GET", `/admin/v1/statement-lines/${id(p)}`),
  "statement add": (c, _p, f) =>
    c.call(
      "POST",
      `/admin/v1/accounts/${int(f, "account") ?? need(f, "account")}/statement-lines`,
      defined({
        booked_at: need(f, "booked-at"),
        amount: need(f, "amount"),
        direction: str(f, "direction"),
        sender_name: str(f, "sender-name"),
        sender_iban: str(f, "sender-iban"),
        description: str(f, "description"),
        bank_ref: str(f, "bank-ref"),
        end_to_end_id: str(f, "end-to-end-id"),
        is_return: bool(f, "return"),
        return_reason: str(f, "return-reason"),
        fee: bool(f, "fee"),
      }),
    ),
  "statement approve": (c, p, f) =>
    c.call("POST", `/admin/v1/statement-lines/${id(p)}/approve`, {
      transaction_id: int(f, "transaction") ?? need(f, "transaction"),
    }),
  "statement not-ours": (c, p, f) =>
    c.call("POST", `/admin/v1/statement-lines/${id(p)}/not-ours`, defined({ note: str(f, "note") })),
  "statement refund": (c, p, f) =>
    c.call(
      "POST",
      `/admin/v1/statement-lines/${id(p)}/refund`,
      defined({ of: int(f, "of") ?? need(f, "of"), note: str(f, "note") }),
    ),
  "feed secret": (c, _p, f) =>
    c.call(
      "POST",
      `/admin/v1/accounts/${int(f, "account") ?? need(f, "account")}/feed-secret`,
      defined({ silence_minutes: int(f, "silence-minutes") }),
    ),
  "feed list": (c) => wrap("feeds")(c.call("GET", "/admin/v1/statement-feeds")),
  "callback redeliver": (c, p, f) => {
    const since = str(f, "failed-since");
    if (since !== undefined) {
      if (p.length > 0) throw new UsageError("give either an id or --failed-since, not both");
      return c.call("POST", "/admin/v1/callbacks/redeliver", { failed_since: since });
    }
    return c.call("POST", `/admin/v1/callbacks/${id(p)}/redeliver`);
  },
  ...PAYOUT_COMMANDS,
  ...LEDGER_COMMANDS,
};

/**
 * What `statement import` prints: the counts docs/reconciliation.md shows, in its order; a statement
 * that does not add up is said on stderr, where it does not disturb the one JSON object on stdout.
 */
function importCounts(json: unknown): Record<string, number> {
  const r = json as Record<string, unknown>;
  for (const s of (r.statements as { sequence: string | null; doubts: string[] }[] | undefined) ?? [])
    for (const doubt of s.doubts)
      process.stderr.write(`statement ${s.sequence ?? "(no number)"}: ${doubt}\n`);
  const keys = [
    "lines",
    "credits",
    "approved",
    "suggested",
    "unmatched",
    "duplicates",
    "returns",
    "debits",
    "payouts_paid",
    "payouts_suggested",
  ];
  return Object.fromEntries(keys.map((k) => [k, Number(r[k] ?? 0)]));
}

/**
 * What `statement sample` prints: the file itself on stdout, to be redirected into a file and
 * imported; what it is and what it pays on stderr, where the file stays unmixed.
 */
function sampleFile(json: unknown): unknown {
  const r = json as {
    file?: unknown;
    purpose: string;
    deposits: number;
    total: string;
    pending_before_window: number;
  };
  // An answer without a file (another server's) is printed as it came.
  if (typeof r.file !== "string") return json;
  process.stderr.write(`${r.purpose}\n`);
  process.stderr.write(`pays ${r.deposits} pending deposits, ${r.total} in all\n`);
  if (r.pending_before_window > 0)
    process.stderr.write(
      `left out: ${r.pending_before_window} pending deposits made more than 24 hours ago, which no line booked now approves\n`,
    );
  return new RawOutput(Buffer.from(r.file, "utf8"), []);
}

/**
 * What each command takes, for `--help` and the usage text (upper case: a value to give; `none`
 * takes a limit or a link off). test/unit/cli-usage.test.ts holds it to what the commands read.
 */
export const SYNTAX: Record<keyof typeof COMMANDS, string> = {
  "provider create":
    "--name N [--kind direct|platform|aggregator] [--callback-url URL] [--auto-cancel-minutes M]",
  "provider list": "",
  "provider update": "ID [--callback-url URL] [--auto-cancel-minutes M]",
  "firm create":
    "--name N [--provider ID] [--webhook-url URL] [--legacy-http true|false] [--callback-middle-name true|false] [--deposit-min AMOUNT] [--deposit-max AMOUNT] [--rate-limit PER_SECOND] [--max-pending-count N|none] [--max-pending-amount AMOUNT|none] [--max-cap-share PERCENT|none] [--display-name NAME] [--usual-amount-max AMOUNT] [--sandbox true|false] [--env]",
  "firm update":
    "ID [--deposits open|closed] [--withdrawals open|closed] [--active true|false] [--webhook-url URL] [--legacy-http true|false] [--callback-middle-name true|false] [--deposit-min AMOUNT|none] [--deposit-max AMOUNT|none] [--rate-limit PER_SECOND] [--reconcile-auto true|false] [--reconcile-by-name true|false] [--answer-payment-code true|false] [--max-pending-count N|none] [--max-pending-amount AMOUNT|none] [--max-cap-share PERCENT|none] [--display-name NAME|none] [--usual-amount-max AMOUNT|none] [--commission-deposit PERCENT[+FIXED]] [--commission-withdrawal PERCENT[+FIXED]] [--commission-deposit-min AMOUNT|none] [--commission-deposit-max AMOUNT|none] [--commission-withdrawal-min AMOUNT|none] [--commission-withdrawal-max AMOUNT|none] [--commission-from TIME] [--overdraft AMOUNT|none]",
  "firm rotate-secret": "ID",
  "firm move-callbacks": "ID --from URL",
  "firm list": "",
  "firm show": "ID",
  "account add":
    "--bank-name B --holder-name H --iban TR... [--min AMOUNT] [--max AMOUNT] [--channel CODE] [--bank-code CODE] [--daily-cap AMOUNT]",
  "account update":
    "ID [--active true|false] [--min AMOUNT|none] [--max AMOUNT|none] [--channel CODE|none] [--bank-code CODE|none] [--daily-cap AMOUNT|none]",
  "channel create": "--code CODE --kind manual|http [--url URL] [--timeout-ms MS]",
  "channel update": "CODE [--url URL] [--timeout-ms MS] [--active true|false]",
  "channel list": "",
  "channel rotate-secret": "CODE",
  "operator create": "--email E --role admin|operator|viewer [--password-stdin]",
  "operator reset-2fa": "--email E",
  "account list": "",
  "user ban": "--firm ID --user-id U",
  "user unban": "--firm ID --user-id U",
  "tx list": "[--firm ID] [--status pending|approved|rejected] [--limit N]",
  "tx show": "ID",
  "statement import": "--account ID FILE",
  "statement sample": "--account ID [--format camt053|mt940]",
  "statement list":
    "[--account ID] [--state open|matched|suggested|unmatched|after_cancellation|debit|not_ours] [--limit N]",
  "statement show": "ID",
  "statement add":
    "--account ID --booked-at DATE|TIME --amount AMOUNT [--direction credit|debit] [--sender-name N] [--sender-iban IBAN] [--description TEXT] [--bank-ref REF] [--end-to-end-id ID] [--return true|false] [--return-reason TEXT] [--fee true|false]",
  "statement approve": "ID --transaction ID",
  "statement not-ours": "ID [--note TEXT]",
  "statement refund": "ID --of ID [--note TEXT]",
  "feed secret": "--account ID [--silence-minutes M]",
  "feed list": "",
  "tx approve": "ID [--amount AMOUNT] [--note TEXT] [--operator NAME]",
  "tx reject": "ID [--note TEXT] [--operator NAME]",
  "callback list": "[--status pending|delivered|failed] [--firm ID] [--limit N]",
  "callback show": "ID",
  "callback redeliver": "ID | --failed-since TIME",
  ...PAYOUT_SYNTAX,
  ...LEDGER_SYNTAX,
};

/** The options a command's usage names ("firm create": name, provider, webhook-url, …). */
export function optionsOf(command: string): string[] {
  return [...(SYNTAX[command] ?? "").matchAll(/--([a-z0-9-]+)/g)].map((m) => m[1] as string);
}

/** The usage lines of the commands that start with `prefix` ("firm", "firm create"; "" for all). */
export function usageOf(prefix: string): string {
  return Object.entries(SYNTAX)
    .filter(([command]) => prefix === "" || command === prefix || command.startsWith(`${prefix} `))
    .map(([command, syntax]) => `  payintake ${command}${syntax ? ` ${syntax}` : ""}`)
    .join("\n");
}

/** A command whose words were checked: its one call to the server, made once a client is given. */
export interface PreparedCommand {
  send(client: AdminClient): Promise<{ status: number; json: unknown }>;
}

/**
 * Checks a command's words without a server: runs the command up to its call to the server and
 * holds that call until `send` gives a client. A flag the command never reads or an argument it
 * does not take is a usage error, raised before anything is sent: a mistyped `--ammount` on
 * `tx approve` must not approve the full amount. The command reads every flag and argument it takes
 * while it builds its request, so by the time it calls the server, anything left unread was not for
 * it. Nothing here needs the configuration, so the CLI checks the words before it reads the admin
 * token or the server's URL: a typo is named whatever the environment holds.
 */
export async function prepareCommand(
  handler: Handler,
  positional: string[],
  flags: Flags,
  /** The options the command takes, for a "did you mean" under a mistyped one. */
  options: readonly string[] = [],
): Promise<PreparedCommand> {
  const read = new Set<string>();
  let taken = 0;
  const trackedFlags = new Proxy(flags, {
    get(target, key) {
      if (typeof key === "string") read.add(key);
      return Reflect.get(target, key);
    },
  });
  const trackedArgs = new Proxy(positional, {
    get(target, key) {
      if (typeof key === "string" && /^\d+$/.test(key)) taken = Math.max(taken, Number(key) + 1);
      return Reflect.get(target, key);
    },
  });
  let give: (client: AdminClient) => void = () => undefined;
  const given = new Promise<AdminClient>((resolve) => {
    give = resolve;
  });
  let pass: () => void = () => undefined;
  const checked = new Promise<void>((resolve) => {
    pass = resolve;
  });
  const check = (method: string) => {
    const unknown = Object.keys(flags).find((k) => !read.has(k));
    if (unknown !== undefined) {
      const meant = closest(unknown, options);
      throw new UsageError(
        `unknown option --${unknown} for this command${meant ? `; did you mean --${meant}?` : ""}`,
      );
    }
    // An update that names nothing to change would answer 200 and change nothing.
    if (method === "PATCH" && Object.keys(flags).length === 0)
      throw new UsageError("nothing to change: give at least one option (--help lists them)");
    if (positional.length > taken) throw new UsageError(`unexpected argument "${positional[taken]}"`);
    pass();
  };
  const held: AdminClient = {
    async call(method, path, body) {
      check(method);
      return (await given).call(method, path, body);
    },
    async download(path) {
      check("GET");
      return (await given).download(path);
    },
  };
  // A handler throws its usage errors while it builds the request (need, int, id) or from
  // `held.call`: either rejects `outcome`, and `checked` is never passed.
  const outcome = (async () => handler(held, trackedArgs, trackedFlags))();
  await Promise.race([checked, outcome]);
  return {
    send(client) {
      give(client);
      return outcome;
    },
  };
}

/** Checks a command's words, then sends its call through `client`. */
export async function runCommand(
  handler: Handler,
  client: AdminClient,
  positional: string[],
  flags: Flags,
  options: readonly string[] = [],
): Promise<{ status: number; json: unknown }> {
  return (await prepareCommand(handler, positional, flags, options)).send(client);
}

export function parseArgv(argv: string[]): { words: string[]; flags: Flags } {
  const words: string[] = [];
  const flags: Flags = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg.startsWith("--")) {
      const eq = arg.indexOf("=");
      if (eq > 0) {
        flags[arg.slice(2, eq)] = arg.slice(eq + 1);
        continue;
      }
      const next = argv[i + 1];
      if (next !== undefined && !next.startsWith("--")) {
        flags[arg.slice(2)] = next;
        i++;
      } else {
        flags[arg.slice(2)] = true;
      }
    } else {
      words.push(arg);
    }
  }
  return { words, flags };
}
