import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";
import { request } from "undici";
import { signRequest } from "../../src/crypto/signature.js";

/**
 * Runs the BUILT command-line tool (dist/main/cli.js, built by `npm run build`) as real child
 * processes. Every child is tracked so a test's afterEach can kill whatever is still running, and
 * every wait has a deadline so a hung child fails the test instead of hanging the run.
 */
export const CLI_PATH = fileURLToPath(new URL("../../dist/main/cli.js", import.meta.url));

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

const live = new Set<Child>();

/**
 * The parent's environment without anything that configures payintake, so a variable set on the
 * machine running the tests cannot leak into a child; then LOG_LEVEL=warn and the test's own values.
 */
export function childEnv(extra: Record<string, string | undefined>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v === undefined) continue;
    if (k.startsWith("PAYINTAKE_") || ["PORT", "HOST", "DATABASE_URL", "LOG_LEVEL"].includes(k)) continue;
    env[k] = v;
  }
  env.LOG_LEVEL = "warn";
  for (const [k, v] of Object.entries(extra)) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return env;
}

export class Child {
  readonly proc: ChildProcess;
  stdout = "";
  stderr = "";
  exit: Exit | undefined;
  readonly exited: Promise<Exit>;
  private readonly listeners = new Set<() => void>();

  constructor(args: string[], env: Record<string, string | undefined>) {
    this.proc = spawn(process.execPath, [CLI_PATH, ...args], {
      env: childEnv(env),
      stdio: ["ignore", "pipe", "pipe"],
    });
    live.add(this);
    this.proc.stdout?.setEncoding("utf8");
    this.proc.stderr?.setEncoding("utf8");
    this.proc.stdout?.on("data", (chunk: string) => {
      this.stdout += chunk;
      this.notify();
    });
    this.proc.stderr?.on("data", (chunk: string) => {
      this.stderr += chunk;
      this.notify();
    });
    this.exited = new Promise<Exit>((resolve) => {
      this.proc.on("error", (err) => {
        this.stderr += `spawn error: ${err.message}\n`;
      });
      // "close" fires after the output streams ended, so stdout/stderr are complete by then.
      this.proc.on("close", (code, signal) => {
        this.exit = { code, signal };
        live.delete(this);
        this.notify();
        resolve(this.exit);
      });
    });
  }

  private notify(): void {
    for (const l of [...this.listeners]) l();
  }

  /** Resolves with the first match of `pattern` in stdout; rejects when the child exits first. */
  waitForStdout(pattern: RegExp, timeoutMs = 20_000): Promise<RegExpMatchArray> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const m = this.stdout.match(pattern);
        if (m) {
          done();
          resolve(m);
        } else if (this.exit) {
          done();
          reject(
            new Error(
              `child exited (${JSON.stringify(this.exit)}) before printing ${pattern}\nstdout: ${this.stdout}\nstderr: ${this.stderr}`,
            ),
          );
        }
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`timed out waiting for ${pattern}\nstdout: ${this.stdout}\nstderr: ${this.stderr}`));
      }, timeoutMs);
      const done = () => {
        clearTimeout(timer);
        this.listeners.delete(check);
      };
      this.listeners.add(check);
      check();
    });
  }

  /** Waits for the exit; on timeout kills the child with SIGKILL and rejects. */
  async waitExit(timeoutMs = 20_000): Promise<Exit> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        this.proc.kill("SIGKILL");
        reject(
          new Error(
            `child did not exit within ${timeoutMs} ms\nstdout: ${this.stdout}\nstderr: ${this.stderr}`,
          ),
        );
      }, timeoutMs);
    });
    try {
      return await Promise.race([this.exited, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  kill(signal: NodeJS.Signals): void {
    if (!this.exit) this.proc.kill(signal);
  }
}

/** Kills every child still running (SIGKILL) and waits for them to be gone. For afterEach/afterAll. */
export async function killAll(): Promise<void> {
  const children = [...live];
  for (const c of children) c.kill("SIGKILL");
  await Promise.all(children.map((c) => c.waitExit(10_000).catch(() => undefined)));
}

export interface CliResult extends Exit {
  stdout: string;
  stderr: string;
}

/** Runs one CLI invocation to completion. */
export async function runCli(
  args: string[],
  env: Record<string, string | undefined>,
  timeoutMs = 20_000,
): Promise<CliResult> {
  const child = new Child(args, env);
  const exit = await child.waitExit(timeoutMs);
  return { ...exit, stdout: child.stdout, stderr: child.stderr };
}

/** stdout must be exactly one line holding one JSON object; returns it parsed. */
export function oneJsonObject(stdout: string): any {
  const lines = stdout.split("\n").filter((l) => l !== "");
  if (lines.length !== 1)
    throw new Error(`expected exactly one line on stdout, got ${lines.length}:\n${stdout}`);
  const value = JSON.parse(lines[0] as string);
  if (value === null || typeof value !== "object" || Array.isArray(value))
    throw new Error(`expected a JSON object on stdout, got: ${stdout}`);
  return value;
}

export interface Server {
  child: Child;
  url: string;
  env: Record<string, string | undefined>;
}

const LISTENING = /payintake listening on (http:\/\/\S+)/;

/** Starts `payintake serve` (PORT=0, HOST=127.0.0.1 unless env says otherwise) and waits for its URL. */
export async function startServe(
  env: Record<string, string | undefined>,
  timeoutMs = 25_000,
): Promise<Server> {
  const full = { PORT: "0", HOST: "127.0.0.1", ...env };
  const child = new Child(["serve"], full);
  try {
    const m = await child.waitForStdout(LISTENING, timeoutMs);
    return { child, url: m[1] as string, env: full };
  } catch (err) {
    child.kill("SIGKILL");
    await child.waitExit(10_000).catch(() => undefined);
    throw err;
  }
}

/** Sends SIGTERM and expects a clean exit. */
export async function stopServe(server: Server, timeoutMs = 20_000): Promise<Exit> {
  server.child.kill("SIGTERM");
  return server.child.waitExit(timeoutMs);
}

/** An operator client: the CLI pointed at `url`, with the given env (token, data dir...). */
export function operator(url: string, env: Record<string, string | undefined>) {
  const base = { ...env, PAYINTAKE_URL: url, PORT: undefined, DATABASE_URL: undefined };
  return {
    /** Runs the command; returns exit code, raw output and the parsed single JSON object. */
    async run(...args: string[]): Promise<CliResult & { json: any }> {
      const r = await runCli(args, base);
      let json: any;
      try {
        json = oneJsonObject(r.stdout);
      } catch {
        json = undefined;
      }
      return { ...r, json };
    },
    /** Runs the command, expects exit 0 and exactly one JSON object on stdout; returns it. */
    async ok(...args: string[]): Promise<any> {
      const r = await runCli(args, base);
      if (r.code !== 0)
        throw new Error(
          `payintake ${args.join(" ")} exited ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`,
        );
      return oneJsonObject(r.stdout);
    },
    /** `account add`: a payment account deposits can be routed to. */
    addAccount(account: { bank: string; holder: string; iban: string }): Promise<any> {
      return this.ok(...accountAddArgs(account));
    },
  };
}

/** `account add`'s words for a payment account (the built CLI's and the in-process commands'). */
export function accountAddArgs(account: { bank: string; holder: string; iban: string }): string[] {
  return [
    "account",
    "add",
    "--bank-name",
    account.bank,
    "--holder-name",
    account.holder,
    "--iban",
    account.iban,
  ];
}

export interface Credentials {
  apiKey: string;
  secret: string;
}

export interface SignedOptions {
  method?: "GET" | "POST";
  path: string;
  body?: unknown;
  nonce?: string;
  timestamp?: string;
  /** Sign with this secret instead of creds.secret. */
  secret?: string;
}

export interface Answer {
  status: number;
  text: string;
  json: any;
}

export const newNonce = () => randomBytes(12).toString("hex");

/** Builds the headers and bytes of a signed merchant request, exactly as the contract signs it. */
export function signed(
  creds: Credentials,
  opts: SignedOptions,
): { method: "GET" | "POST"; headers: Record<string, string>; body: Buffer } {
  const method = opts.method ?? (opts.body === undefined ? "GET" : "POST");
  const body = opts.body === undefined ? Buffer.alloc(0) : Buffer.from(JSON.stringify(opts.body), "utf8");
  const timestamp = opts.timestamp ?? String(Math.floor(Date.now() / 1000));
  const nonce = opts.nonce ?? newNonce();
  const signature = signRequest(opts.secret ?? creds.secret, {
    method,
    path: opts.path,
    body,
    timestamp,
    nonce,
  });
  return {
    method,
    body,
    headers: {
      "content-type": "application/json",
      "x-api-key": creds.apiKey,
      "x-signature": signature,
      "x-timestamp": timestamp,
      "x-nonce": nonce,
    },
  };
}

/** Sends a signed request with undici (no connection reuse, so a stopped server leaves nothing behind). */
export async function sendSigned(url: string, creds: Credentials, opts: SignedOptions): Promise<Answer> {
  const r = signed(creds, opts);
  const res = await request(`${url}${opts.path}`, {
    method: r.method,
    headers: r.headers,
    body: r.method === "GET" ? undefined : r.body,
    reset: true,
    headersTimeout: 15_000,
    bodyTimeout: 15_000,
  });
  const text = await res.body.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.statusCode, text, json };
}

/** The query the brief uses as an authentication probe: 404 "transaction not found" once auth passes. */
export const PROBE_PATH = "/paymentapi/v1/transactions/by-reference/x";

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** The exact body of the probe's answer once authentication passed. */
export const NOT_FOUND_TEXT = '{"success":false,"message":"transaction not found"}';
