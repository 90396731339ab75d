import { type ChildProcess, spawn } from "node:child_process";

/**
 * Servers under test run as child processes, so they never share an event loop (or a core, when
 * the scheduler allows) with the load generator. A child announces itself with a line containing
 * "listening on <url>" on stdout; the rest of its output is kept (tail only) for error reports.
 */
export interface Child {
  name: string;
  url: string;
  pid: number;
  /** Last few KB of stdout and stderr, for diagnostics. */
  output(): string;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves once the process has exited. */
  stop(graceMs?: number): Promise<void>;
}

const LISTENING = /listening on (https?:\/\/\S+)/;
const TAIL_BYTES = 8 * 1024;

/** Environment for a child: the parent's, minus anything that would steer payintake elsewhere. */
export function childEnv(extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v === undefined) continue;
    if (k.startsWith("PAYINTAKE_") || k.startsWith("BENCH_")) continue;
    if (["DATABASE_URL", "PORT", "HOST", "LOG_LEVEL", "NODE_OPTIONS"].includes(k)) continue;
    env[k] = v;
  }
  return { ...env, ...extra };
}

export function startChild(
  name: string,
  args: string[],
  env: Record<string, string>,
  /** `node`: the Node.js binary to run the child under (default: the bench's own). */
  opts: { cwd: string; timeoutMs?: number; node?: string },
): Promise<Child> {
  const proc: ChildProcess = spawn(opts.node ?? process.execPath, args, {
    cwd: opts.cwd,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let tail = "";
  let stdoutText = "";
  const keep = (chunk: Buffer) => {
    tail = (tail + chunk.toString("utf8")).slice(-TAIL_BYTES);
  };
  const exited = new Promise<void>((resolve) => proc.once("exit", () => resolve()));
  let exitedAlready = false;
  void exited.then(() => {
    exitedAlready = true;
  });

  const child = (url: string): Child => ({
    name,
    url,
    pid: proc.pid ?? -1,
    output: () => tail,
    async stop(graceMs = 10_000) {
      if (exitedAlready) return;
      proc.kill("SIGTERM");
      const timer = setTimeout(() => proc.kill("SIGKILL"), graceMs);
      await exited;
      clearTimeout(timer);
    },
  });

  return new Promise<Child>((resolve, reject) => {
    let settled = false;
    const fail = (why: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      proc.kill("SIGKILL");
      reject(new Error(`${name}: ${why}\n--- output ---\n${tail}`));
    };
    const timer = setTimeout(
      () => fail("did not report 'listening on <url>' in time"),
      opts.timeoutMs ?? 30_000,
    );
    proc.stdout?.on("data", (chunk: Buffer) => {
      keep(chunk);
      if (settled) return;
      stdoutText += chunk.toString("utf8");
      const match = LISTENING.exec(stdoutText);
      if (match?.[1]) {
        settled = true;
        clearTimeout(timer);
        stdoutText = "";
        resolve(child(match[1]));
      }
    });
    proc.stderr?.on("data", keep);
    proc.once("error", (err) => fail(`could not start: ${err.message}`));
    proc.once("exit", (code, signal) => fail(`exited before listening (code ${code}, signal ${signal})`));
  });
}
