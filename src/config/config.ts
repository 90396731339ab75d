/**
 * Every setting the service reads from the environment. Parsed once at start; a bad value stops the
 * start with a message naming the variable. Nothing else in the code reads process.env.
 */
import { isIP } from "node:net";
import { z } from "zod";

const booleanFlag = z
  .enum(["true", "false", "1", "0", "yes", "no"], { message: "must be true or false" })
  .transform((v) => v === "true" || v === "1" || v === "yes");

const absoluteHttpUrl = z.string().refine(
  (v) => {
    try {
      const url = new URL(v);
      return url.protocol === "http:" || url.protocol === "https:";
    } catch {
      return false;
    }
  },
  { message: "must be an absolute http(s) URL" },
);

/** Addresses or CIDR ranges of the reverse proxies in front of us, comma-separated. */
const proxyList = z
  .string()
  .transform((v) =>
    v
      .split(",")
      .map((p) => p.trim())
      .filter(Boolean),
  )
  .refine(
    (parts) =>
      parts.every((p) => {
        const [ip = "", bits, ...rest] = p.split("/");
        const family = isIP(ip);
        if (family === 0 || rest.length > 0) return false;
        return bits === undefined || (/^\d+$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128));
      }),
    { message: "must be IP addresses or CIDR ranges, comma-separated (e.g. 10.0.0.1,10.1.0.0/16)" },
  );

/**
 * A whole number within bounds, and said so when it is not: "PORT must be a number from 0 to
 * 65535", where zod's own words would be "Invalid input: expected number, received NaN".
 */
function wholeNumber(min: number, max: number, fallback: number, noun = "a whole number") {
  const message = `must be ${noun} from ${min} to ${max}`;
  return z.coerce
    .number({ message })
    .int({ message })
    .min(min, { message })
    .max(max, { message })
    .default(fallback);
}

/** Connections per instance when PAYINTAKE_PG_POOL_SIZE is not set. */
export const DEFAULT_PG_POOL_SIZE = 20;

const envSchema = z.object({
  PORT: wholeNumber(0, 65535, 8080, "a number"),
  HOST: z.string().min(1).default("127.0.0.1"),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, {
      message: "must be a postgres:// URL (leave it unset for the embedded store)",
    })
    .optional(),
  PAYINTAKE_DATA_DIR: z.string().min(1).default("./data"),
  PAYINTAKE_MASTER_KEY: z
    .string()
    .regex(/^[0-9a-fA-F]{64}$/, { message: "must be 64 hex characters (32 bytes)" })
    .optional(),
  PAYINTAKE_NEW_MASTER_KEY: z
    .string()
    .regex(/^[0-9a-fA-F]{64}$/, { message: "must be 64 hex characters (32 bytes)" })
    .optional(),
  PAYINTAKE_ADMIN_TOKEN: z.string().min(24, { message: "must be at least 24 characters" }).optional(),
  PAYMENT_PAGE_URL: absoluteHttpUrl.optional(),
  PAYINTAKE_ALLOW_PRIVATE_CALLBACKS: booleanFlag.default(false),
  PAYINTAKE_CONSOLE_REQUIRE_SECOND_FACTOR: booleanFlag.default(false),
  PAYINTAKE_PG_POOL_SIZE: wholeNumber(1, 200, DEFAULT_PG_POOL_SIZE),
  PAYINTAKE_PG_STATEMENT_TIMEOUT_MS: wholeNumber(1_000, 3_600_000, 30_000),
  // For measuring what each part of the store's machinery buys (docs/adr/0012); production leaves both on.
  PAYINTAKE_SQLITE_THREAD: booleanFlag.default(true),
  PAYINTAKE_PG_BATCHES: booleanFlag.default(true),
  PAYINTAKE_URL: absoluteHttpUrl.optional(),
  PAYINTAKE_SHUTDOWN_DRAIN_MS: wholeNumber(0, 60_000, 1_000),
  // Above the idle timeout of the load balancer in front (60 s for AWS ALB and nginx upstreams):
  // a server that closes an idle connection first races the balancer's next request on it (a 502).
  PAYINTAKE_KEEP_ALIVE_TIMEOUT_MS: wholeNumber(1_000, 900_000, 65_000),
  // A request's body within this of its headers: a slow client cannot hold a connection forever.
  PAYINTAKE_REQUEST_TIMEOUT_MS: wholeNumber(1_000, 600_000, 30_000),
  // A bank statement (up to 200 MB) as a whole: 30 minutes is 1 Mbit/s for the largest.
  PAYINTAKE_UPLOAD_TIMEOUT_MS: wholeNumber(1_000, 7_200_000, 1_800_000),
  // Each import holds up to about 200 MB while its file is read: two at once stay within a small host.
  PAYINTAKE_STATEMENT_IMPORTS: wholeNumber(1, 16, 2),
  LOG_LEVEL: z
    .enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"], {
      message: "must be fatal, error, warn, info, debug, trace or silent",
    })
    .default("info"),
  // Unset: lines for a person where stdout is a terminal, JSON for a machine everywhere else.
  LOG_FORMAT: z.enum(["json", "pretty"], { message: "must be json or pretty" }).optional(),
  PAYINTAKE_CALLBACK_TIMEOUT_MS: wholeNumber(100, 10_000, 10_000),
  PAYINTAKE_CALLBACK_CONCURRENCY: wholeNumber(1, 1_000, 64),
  PAYINTAKE_CALLBACK_PER_ORIGIN: wholeNumber(1, 100, 8),
  PAYINTAKE_CALLBACK_HANGING_PER_ORIGIN: wholeNumber(0, 100, 8),
  // Renewed every third of itself while the sender lives: a killed worker's callbacks wait this long.
  PAYINTAKE_CALLBACK_LEASE_MS: wholeNumber(1_000, 3_600_000, 10_000),
  PAYINTAKE_CALLBACK_POLL_MS: wholeNumber(10, 60_000, 1_000),
  PAYINTAKE_ROUTING_DEADLINE_MS: wholeNumber(100, 20_000, 20_000),
  // domain/cap-share.ts: 100 gives a firm without its own share the whole cap, shared or not.
  PAYINTAKE_DEFAULT_CAP_SHARE: wholeNumber(1, 100, 50),
  PAYINTAKE_AUTO_CANCEL_INTERVAL_MS: wholeNumber(10, 3_600_000, 15_000),
  PAYINTAKE_PAYOUT_WATCH_INTERVAL_MS: wholeNumber(10, 3_600_000, 30_000),
  // How long a connection with a request in progress may be silent (Fastify's connectionTimeout).
  PAYINTAKE_CONNECTION_SILENCE_MS: wholeNumber(1_000, 600_000, 60_000),
  // Under the connection's silence allowance (checked below), which would cut the stream.
  PAYINTAKE_CONSOLE_HEARTBEAT_MS: wholeNumber(100, 50_000, 25_000),
  PAYINTAKE_CONSOLE_UNDO_SECONDS: wholeNumber(0, 30, 5),
  // PCI DSS 8.2.8 asks for 15 minutes at most; 12 hours is the session's own absolute limit.
  PAYINTAKE_CONSOLE_IDLE_MINUTES: wholeNumber(5, 720, 15),
  PAYINTAKE_TRUST_PROXY: proxyList.optional(),
  PAYINTAKE_ROLE: z.enum(["all", "api", "worker"], { message: "must be all, api or worker" }).default("all"),
  PAYINTAKE_METRICS_TOKEN: z.string().min(24, { message: "must be at least 24 characters" }).optional(),
});

/** Read by the CLI's operator commands, not by the server (main/commands.ts). */
const CLI_VARIABLES = ["PAYINTAKE_OPERATOR"];
/**
 * PAYINTAKE_ names that are not the service's settings: the test suite's and its tools', and the
 * ones the client's README has a merchant's own application read.
 */
const OTHER_READERS = /^PAYINTAKE_(TEST_[A-Z0-9_]*|CHROMIUM|SCREENSHOTS|REAL_PG_RESTART|API_KEY|SECRET_KEY)$/;

/** Every variable payintake reads: the table in docs/configuration.md lists exactly these. */
export const CONFIG_VARIABLES: readonly string[] = [...Object.keys(envSchema.shape), ...CLI_VARIABLES];

export interface Config {
  port: number;
  host: string;
  /** Unset means the embedded SQLite store in dataDir. */
  databaseUrl: string | undefined;
  dataDir: string;
  masterKeyHex: string | undefined;
  /** Read by `payintake master-key rotate` only: the key to seal everything under instead. */
  newMasterKeyHex: string | undefined;
  adminToken: string | undefined;
  paymentPageUrl: string | undefined;
  /** Development and tests only: lets callbacks target loopback and private addresses. */
  allowPrivateCallbacks: boolean;
  /** Every operator must use two-step sign-in: one without it can only set it up (docs/console.md). */
  consoleSecondFactorRequired: boolean;
  pgPoolSize: number;
  /** The store's machinery (store/engine/open.ts, StoreEngine): both on unless measuring. */
  storeEngine: { sqliteThread: boolean; pgBatches: boolean };
  /** The most one PostgreSQL statement may run, lock waits included (migrations are not bound). */
  pgStatementTimeoutMs: number;
  /** Where the CLI finds the running server; defaults to http://HOST:PORT. */
  serverUrl: string;
  logLevel: string;
  /** Undefined: pretty where stdout is a terminal, else JSON (main/log-format.ts). */
  logFormat: "json" | "pretty" | undefined;
  /** Callback delivery: per-attempt timeout (10 s by contract), sends in flight, and how often to look for due retries. */
  callbacks: {
    timeoutMs: number;
    concurrency: number;
    perOrigin: number;
    /** Hanging attempts one receiver may have beside its `perOrigin` (callbacks/receiver-speed.ts). */
    hangingPerOrigin: number;
    pollMs: number;
    leaseMs: number;
  };
  /** How often each instance looks for pending deposits past their provider's auto-cancel time. */
  autoCancelIntervalMs: number;
  /** How often each instance asks payout channels of sent payouts and raises overdue ones. */
  payoutWatchIntervalMs: number;
  /** How often a console's live stream is written to and its session checked (decisions/http/live.ts). */
  consoleHeartbeatMs: number;
  /**
   * How long the console holds an operator's decision before sending it, so that it can be taken
   * back (docs/console.md); 0 sends at once.
   */
  consoleUndoSeconds: number;
  /**
   * A console session ends after this many minutes without the operator doing anything (background
   * refreshes do not count; operators/idle.ts); the 12-hour limit from sign-in stays.
   */
  consoleIdleMinutes: number;
  /** The most time routing may spend asking channels for one deposit (contract: about 20 s). */
  routingDeadlineMs: number;
  /**
   * The most of each capped account's day a firm without its own `max_cap_share` may take while
   * other live firms share the account, percent (domain/cap-share.ts); 100: the whole cap.
   */
  defaultCapShare: number;
  /**
   * The reverse proxies whose X-Forwarded-For and X-Forwarded-Proto are believed (client address for
   * rate limits, https for the console's Secure cookie); empty: none, the socket is the client.
   */
  trustProxy: string[];
  /**
   * What this instance does: `api` answers HTTP, `worker` sends callbacks and runs auto-cancel
   * (and answers only health and metrics), `all` both. Any number of each on one PostgreSQL.
   */
  role: "all" | "api" | "worker";
  /** A bearer token that lets a remote scraper read /metrics (a scraper on the host needs none). */
  metricsToken: string | undefined;
  /** On SIGTERM, how long to keep accepting (with Connection: close) before the listener closes. */
  shutdownDrainMs: number;
  /** How long an idle keep-alive connection stays open (longer than the proxy's idle timeout). */
  keepAliveTimeoutMs: number;
  /** How long a connection with a request in progress may be silent before it is closed. */
  connectionSilenceMs: number;
  /** How long a request's body may take to arrive after its headers (body-deadline.ts). */
  requestTimeoutMs: number;
  /** How long a statement upload may take as a whole request. */
  uploadTimeoutMs: number;
  /** Statement imports one instance runs at once; a further upload is refused, to be tried again. */
  statementImportsAtOnce: number;
  /**
   * PAYINTAKE_ variables set that payintake does not read: most likely a misspelt setting, which
   * would otherwise leave its default in force without a word (the server warns of them at start).
   */
  unknownVariables: string[];
}

export class ConfigError extends Error {}

/** The rules between settings, read from the raw values where a variable's own rule failed. */
function crossProblems(
  raw: Record<string, string | undefined>,
  e: z.infer<typeof envSchema> | undefined,
  serving: boolean,
): string[] {
  const problems: string[] = [];
  // One embedded store, one process: an api-only instance there would never send a callback.
  const role = raw.PAYINTAKE_ROLE ?? "all";
  if ((role === "api" || role === "worker") && raw.DATABASE_URL === undefined)
    problems.push(
      "PAYINTAKE_ROLE: api and worker need DATABASE_URL (the embedded store runs one process: all)",
    );
  if (e && e.PAYINTAKE_CONSOLE_HEARTBEAT_MS >= e.PAYINTAKE_CONNECTION_SILENCE_MS)
    problems.push(
      "PAYINTAKE_CONSOLE_HEARTBEAT_MS must be below PAYINTAKE_CONNECTION_SILENCE_MS (a silent live stream is cut)",
    );
  if (serving)
    problems.push(
      ...sharedSecretProblems({
        databaseUrl: raw.DATABASE_URL,
        masterKeyHex: raw.PAYINTAKE_MASTER_KEY,
        adminToken: raw.PAYINTAKE_ADMIN_TOKEN,
      }),
    );
  return problems;
}

/**
 * Instances on one PostgreSQL store share their master key and admin token, which a server there
 * must be given (the embedded store keeps its own in the data directory): what is missing, each a line.
 */
export function sharedSecretProblems(c: {
  databaseUrl?: string | undefined;
  masterKeyHex?: string | undefined;
  adminToken?: string | undefined;
}): string[] {
  if (!c.databaseUrl) return [];
  return [
    c.masterKeyHex ? undefined : "PAYINTAKE_MASTER_KEY: required with DATABASE_URL (64 hex characters)",
    c.adminToken ? undefined : "PAYINTAKE_ADMIN_TOKEN: required with DATABASE_URL",
  ].filter((line): line is string => line !== undefined);
}

/**
 * The settings, or every bad and missing one in one report (ConfigError): the variables' own rules,
 * the rules between them, and, for a server (`serving`) on PostgreSQL, the secrets every instance
 * shares. A start then never fails on one setting after another.
 */
export function parseConfig(
  env: Record<string, string | undefined>,
  opts: { serving?: boolean } = {},
): Config {
  // An empty variable is treated as unset, as shells and compose files often leave them empty.
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ""));
  const parsed = envSchema.safeParse(cleaned);
  // Each as a sentence: "PORT must be a number from 0 to 65535".
  const problems = parsed.success
    ? []
    : parsed.error.issues.map((issue) => `${issue.path.join(".")} ${issue.message}`);
  problems.push(...crossProblems(cleaned, parsed.success ? parsed.data : undefined, opts.serving === true));
  if (problems.length > 0 || !parsed.success)
    throw new ConfigError(`invalid configuration:\n  ${problems.join("\n  ")}`);
  const e = parsed.data;
  const unknownVariables = Object.keys(cleaned)
    .filter((name) => name.startsWith("PAYINTAKE_") && !CONFIG_VARIABLES.includes(name))
    .filter((name) => !OTHER_READERS.test(name))
    .sort();
  return {
    unknownVariables,
    port: e.PORT,
    host: e.HOST,
    databaseUrl: e.DATABASE_URL,
    dataDir: e.PAYINTAKE_DATA_DIR,
    masterKeyHex: e.PAYINTAKE_MASTER_KEY,
    newMasterKeyHex: e.PAYINTAKE_NEW_MASTER_KEY,
    adminToken: e.PAYINTAKE_ADMIN_TOKEN,
    paymentPageUrl: e.PAYMENT_PAGE_URL?.replace(/\/+$/, ""),
    allowPrivateCallbacks: e.PAYINTAKE_ALLOW_PRIVATE_CALLBACKS,
    consoleSecondFactorRequired: e.PAYINTAKE_CONSOLE_REQUIRE_SECOND_FACTOR,
    pgPoolSize: e.PAYINTAKE_PG_POOL_SIZE,
    storeEngine: { sqliteThread: e.PAYINTAKE_SQLITE_THREAD, pgBatches: e.PAYINTAKE_PG_BATCHES },
    pgStatementTimeoutMs: e.PAYINTAKE_PG_STATEMENT_TIMEOUT_MS,
    serverUrl: (e.PAYINTAKE_URL ?? `http://${e.HOST === "0.0.0.0" ? "127.0.0.1" : e.HOST}:${e.PORT}`).replace(
      /\/+$/,
      "",
    ),
    logLevel: e.LOG_LEVEL,
    logFormat: e.LOG_FORMAT,
    shutdownDrainMs: e.PAYINTAKE_SHUTDOWN_DRAIN_MS,
    keepAliveTimeoutMs: e.PAYINTAKE_KEEP_ALIVE_TIMEOUT_MS,
    connectionSilenceMs: e.PAYINTAKE_CONNECTION_SILENCE_MS,
    requestTimeoutMs: e.PAYINTAKE_REQUEST_TIMEOUT_MS,
    // Never shorter than an ordinary request's limit.
    uploadTimeoutMs: Math.max(e.PAYINTAKE_UPLOAD_TIMEOUT_MS, e.PAYINTAKE_REQUEST_TIMEOUT_MS),
    statementImportsAtOnce: e.PAYINTAKE_STATEMENT_IMPORTS,
    callbacks: {
      timeoutMs: e.PAYINTAKE_CALLBACK_TIMEOUT_MS,
      concurrency: e.PAYINTAKE_CALLBACK_CONCURRENCY,
      perOrigin: e.PAYINTAKE_CALLBACK_PER_ORIGIN,
      hangingPerOrigin: e.PAYINTAKE_CALLBACK_HANGING_PER_ORIGIN,
      pollMs: e.PAYINTAKE_CALLBACK_POLL_MS,
      leaseMs: e.PAYINTAKE_CALLBACK_LEASE_MS,
    },
    autoCancelIntervalMs: e.PAYINTAKE_AUTO_CANCEL_INTERVAL_MS,
    payoutWatchIntervalMs: e.PAYINTAKE_PAYOUT_WATCH_INTERVAL_MS,
    consoleHeartbeatMs: e.PAYINTAKE_CONSOLE_HEARTBEAT_MS,
    consoleUndoSeconds: e.PAYINTAKE_CONSOLE_UNDO_SECONDS,
    consoleIdleMinutes: e.PAYINTAKE_CONSOLE_IDLE_MINUTES,
    routingDeadlineMs: e.PAYINTAKE_ROUTING_DEADLINE_MS,
    defaultCapShare: e.PAYINTAKE_DEFAULT_CAP_SHARE,
    trustProxy: e.PAYINTAKE_TRUST_PROXY ?? [],
    role: e.PAYINTAKE_ROLE,
    metricsToken: e.PAYINTAKE_METRICS_TOKEN,
  };
}
