import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { STORES, storeEnv } from "../support/harness.js";
import {
  killAll,
  NOT_FOUND_TEXT,
  oneJsonObject,
  operator,
  PROBE_PATH,
  runCli,
  sendSigned,
  startServe,
  stopServe,
} from "../support/spawn.js";

/** Starting, migrating and refusing to start: `payintake serve` and `payintake migrate` as processes. */
const cleanups: (() => Promise<void> | void)[] = [];

afterEach(async () => {
  await killAll();
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A store no migration touched yet: these tests are of migrating it. */
async function freshStore(kind: "sqlite" | "postgres") {
  const store = await storeEnv(kind, { empty: true });
  cleanups.push(() => store.cleanup());
  return store;
}

describe.each(STORES)("payintake migrate and serve on a fresh %s store", (kind) => {
  it("migrate applies every migration once, then finds nothing to do; serve then starts", async () => {
    const store = await freshStore(kind);
    const first = await runCli(["migrate"], store.env);
    expect(first.code).toBe(0);
    const applied = oneJsonObject(first.stdout);
    expect(Object.keys(applied)).toEqual(["applied", "payer_names_keyed", "missing_indexes"]);
    expect(applied.missing_indexes).toEqual([]);
    expect(applied.payer_names_keyed).toBe(0);
    expect(applied.applied.length).toBeGreaterThan(0);
    for (const v of applied.applied) expect(typeof v).toBe("string");

    const second = await runCli(["migrate"], store.env);
    expect(second.code).toBe(0);
    expect(oneJsonObject(second.stdout)).toEqual({ applied: [], payer_names_keyed: 0, missing_indexes: [] });

    const server = await startServe(store.env);
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(await operator(server.url, store.env).ok("firm", "list")).toEqual({ firms: [] });
    expect(await stopServe(server)).toEqual({ code: 0, signal: null });
  });

  it("serve migrates a fresh store by itself: migrate afterwards applies nothing", async () => {
    const store = await freshStore(kind);
    const server = await startServe(store.env);
    expect(server.child.stdout).toContain(`payintake listening on ${server.url}`);
    expect(await operator(server.url, store.env).ok("provider", "list")).toEqual({ providers: [] });
    expect(await stopServe(server)).toEqual({ code: 0, signal: null });

    const after = await runCli(["migrate"], store.env);
    expect(after.code).toBe(0);
    expect(oneJsonObject(after.stdout)).toEqual({ applied: [], payer_names_keyed: 0, missing_indexes: [] });
  });
});

describe("the log a person reads", () => {
  it("LOG_FORMAT=pretty writes lines, not JSON, and says it listens once", async () => {
    const store = await freshStore("sqlite");
    const server = await startServe({ ...store.env, LOG_FORMAT: "pretty" });
    const lines = server.child.stdout.split("\n").filter(Boolean);
    expect(lines.filter((l) => l.startsWith("{"))).toEqual([]);
    expect(lines.filter((l) => /listening/i.test(l))).toEqual([`payintake listening on ${server.url}`]);
    expect(lines.some((l) => /^\d\d:\d\d:\d\d\.\d{3} (INFO|WARN) {1,2}\S/.test(l))).toBe(true);
    expect(await stopServe(server)).toEqual({ code: 0, signal: null });
  });
});

describe("the embedded store's exclusive lock", () => {
  it("a second serve on the same data directory exits non-zero naming the conflict", async () => {
    const store = await freshStore("sqlite");
    const first = await startServe(store.env);

    const second = await runCli(["serve"], { ...store.env, PORT: "0", HOST: "127.0.0.1" });
    expect(second.code).not.toBe(0);
    expect(second.code).not.toBeNull();
    expect(second.stderr).toContain("in use by another payintake server");
    expect(second.stdout).not.toContain("payintake listening on");

    // The first server is unharmed.
    expect(await operator(first.url, store.env).ok("firm", "list")).toEqual({ firms: [] });
    expect(await stopServe(first)).toEqual({ code: 0, signal: null });
  });

  it("migrate while a server holds the data directory exits non-zero naming the conflict", async () => {
    const store = await freshStore("sqlite");
    const server = await startServe(store.env);
    const migrate = await runCli(["migrate"], store.env);
    expect(migrate.code).not.toBe(0);
    expect(migrate.stderr).toContain("in use by another payintake server");
    expect(await stopServe(server)).toEqual({ code: 0, signal: null });
  });
});

describe("a misspelt setting", () => {
  it("is named in a warning at start, without its value, and the server starts with the default", async () => {
    const store = await freshStore("sqlite");
    const secretLooking = "f".repeat(64);
    const server = await startServe({
      ...store.env,
      // Meant: PAYINTAKE_CONSOLE_REQUIRE_SECOND_FACTOR (left at false) and PAYINTAKE_METRICS_TOKEN.
      PAYINTAKE_CONSOLE_REQUIRE_2FA: "true",
      PAYINTAKE_METRIC_TOKEN: secretLooking,
      // Read by the test suite and by a merchant's application, not a misspelling.
      PAYINTAKE_TEST_STORES: "sqlite",
      PAYINTAKE_API_KEY: "pk_test",
    });
    expect(await stopServe(server)).toEqual({ code: 0, signal: null });
    const warnings = server.child.stdout
      .split("\n")
      .filter((l) => l.includes("not a setting payintake reads"));
    expect(warnings).toHaveLength(1);
    expect(JSON.parse(warnings[0] as string)).toMatchObject({
      level: 40,
      msg: expect.stringMatching(/^PAYINTAKE_CONSOLE_REQUIRE_2FA, PAYINTAKE_METRIC_TOKEN: not a setting/),
    });
    expect(server.child.stdout + server.child.stderr).not.toContain(secretLooking);
  });
});

describe("exit codes (docs/operations.md, Stopping)", () => {
  it("a port another server holds exits 1 naming the address, not 2: the configuration is not wrong", async () => {
    const store = await freshStore("sqlite");
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    cleanups.push(() => new Promise<void>((resolve) => taken.close(() => resolve())));
    const port = String((taken.address() as AddressInfo).port);
    const r = await runCli(["serve"], { ...store.env, PORT: port, HOST: "127.0.0.1" });
    expect(r.code).toBe(1);
    // Said in words, with a way out: another port.
    expect(r.stderr).toContain(`port ${port} on 127.0.0.1 is in use`);
    expect(r.stderr).toContain(`PORT=${Number(port) + 1} npm start`);
    expect(r.stdout).not.toContain("payintake listening on");
  });
});

describe("a slip at the command line or in the port", () => {
  it("an option serve, migrate or channel-sim does not take exits 2 with the likely one, starting nothing", async () => {
    const store = await freshStore("sqlite");
    const serve = await runCli(["serve", "--rol", "api"], store.env);
    expect([serve.code, serve.stderr.trim()]).toEqual([
      2,
      "payintake: unknown option --rol for this command; did you mean --role?",
    ]);
    expect(serve.stdout).not.toContain("listening");
    const sim = await runCli(["channel-sim", "--prot", "9"], store.env);
    expect([sim.code, sim.stderr.trim()]).toEqual([
      2,
      "payintake: unknown option --prot for this command; did you mean --port?",
    ]);
    // An option that is a setting: the variable that sets it, with the value given.
    const port = await runCli(["serve", "--port", "8080"], store.env);
    expect([port.code, port.stderr.trim()]).toEqual([
      2,
      "payintake: unknown option --port for this command; it is set by the environment variable PORT (PORT=8080)",
    ]);
    const dataDir = await runCli(["migrate", "--data-dir"], store.env);
    expect(dataDir.stderr.trim()).toBe(
      "payintake: unknown option --data-dir for this command; it is set by the environment variable PAYINTAKE_DATA_DIR",
    );
    const migrate = await runCli(["migrate", "--dry-run"], store.env);
    expect([migrate.code, migrate.stderr.trim()]).toEqual([
      2,
      "payintake: unknown option --dry-run for this command",
    ]);
  });

  // Only root can take the right away to show it: CI and this machine run the suite as root. The
  // process stays root and loses only CAP_NET_BIND_SERVICE, so it still reads a tree (and a Node
  // binary) that another user could not, as in CI's private temporary clones.
  it.skipIf(process.getuid?.() !== 0 || !existsSync("/usr/bin/setpriv"))(
    "a port below 1024 without the right to it says so in one line, with a way out",
    async () => {
      const dir = mkdtempSync(join(tmpdir(), "payintake-eacces-"));
      cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
      const withoutBind = ["--bounding-set=-net_bind_service", "--inh-caps=-net_bind_service"];
      const r = await runProcess(
        "/usr/bin/setpriv",
        [...withoutBind, process.execPath, "dist/main/cli.js", "serve"],
        { PATH: process.env.PATH ?? "", PORT: "81", HOST: "127.0.0.1", PAYINTAKE_DATA_DIR: dir },
      );
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(
        "payintake: port 81 on 127.0.0.1: permission denied (ports below 1024 need root or the CAP_NET_BIND_SERVICE capability): start on a port above 1023, e.g. PORT=8080 npm start",
      );
      expect(r.stderr).not.toContain("    at ");
    },
  );
});

/** A process run to its end: its exit code and what it wrote. */
function runProcess(command: string, args: string[], env: Record<string, string>) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    execFile(command, args, { env, timeout: 20_000 }, (err, stdout, stderr) => {
      const code = err ? ((err as { code?: unknown }).code as number | null) : 0;
      if (err && typeof (err as { code?: unknown }).code !== "number") reject(err);
      else resolve({ code, stdout, stderr });
    });
  });
}

describe("bad configuration stops the start", () => {
  it("PORT=abc exits 2 naming PORT", async () => {
    const store = await freshStore("sqlite");
    const r = await runCli(["serve"], { ...store.env, PORT: "abc" });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("PORT must be a number from 0 to 65535");
    expect(r.stdout).not.toContain("payintake listening on");
  });

  it("a HOST this machine cannot listen on exits 2 naming HOST", async () => {
    const store = await freshStore("sqlite");
    // 192.0.2.1 (TEST-NET-1) is on no machine's interfaces: no lookup, no traffic.
    const r = await runCli(["serve"], { ...store.env, PORT: "0", HOST: "192.0.2.1" });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('HOST: cannot listen on "192.0.2.1" (EADDRNOTAVAIL)');
    expect(r.stdout).not.toContain("payintake listening on");
  });

  it("PORT=70000 exits 2 naming PORT", async () => {
    const store = await freshStore("sqlite");
    const r = await runCli(["serve"], { ...store.env, PORT: "70000" });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("PORT");
  });

  it("DATABASE_URL=mysql://x exits 2 naming DATABASE_URL", async () => {
    const store = await freshStore("sqlite");
    const r = await runCli(["serve"], { ...store.env, PORT: "0", DATABASE_URL: "mysql://x" });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("DATABASE_URL");
    expect(r.stdout).not.toContain("payintake listening on");
  });

  it("migrate with DATABASE_URL=mysql://x exits 2 naming DATABASE_URL", async () => {
    const store = await freshStore("sqlite");
    const r = await runCli(["migrate"], { ...store.env, DATABASE_URL: "mysql://x" });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("DATABASE_URL");
  });

  it("a short PAYINTAKE_MASTER_KEY exits 2 naming it", async () => {
    const store = await freshStore("sqlite");
    const r = await runCli(["serve"], { ...store.env, PORT: "0", PAYINTAKE_MASTER_KEY: "abcd" });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("PAYINTAKE_MASTER_KEY");
  });

  it("an operator command with PAYINTAKE_URL=not-a-url exits 2 naming PAYINTAKE_URL", async () => {
    const store = await freshStore("sqlite");
    const r = await runCli(["firm", "list"], { ...store.env, PAYINTAKE_URL: "not-a-url" });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("PAYINTAKE_URL");
    expect(r.stdout).toBe("");
  });

  it.runIf(STORES.includes("postgres"))(
    "PostgreSQL without PAYINTAKE_MASTER_KEY fails naming PAYINTAKE_MASTER_KEY",
    async () => {
      const store = await freshStore("postgres");
      const r = await runCli(["serve"], { ...store.env, PORT: "0", PAYINTAKE_MASTER_KEY: undefined });
      expect(r.code).not.toBe(0);
      expect(r.code).not.toBeNull();
      expect(r.stderr).toContain("PAYINTAKE_MASTER_KEY");
      expect(r.stdout).not.toContain("payintake listening on");
      // No key was generated for it: several PostgreSQL instances must share one key.
      expect(existsSync(join(store.env.PAYINTAKE_DATA_DIR as string, "master.key"))).toBe(false);
    },
  );

  it.runIf(STORES.includes("postgres"))(
    "PostgreSQL without PAYINTAKE_ADMIN_TOKEN fails naming PAYINTAKE_ADMIN_TOKEN",
    async () => {
      const store = await freshStore("postgres");
      const r = await runCli(["serve"], { ...store.env, PORT: "0", PAYINTAKE_ADMIN_TOKEN: undefined });
      expect(r.code).not.toBe(0);
      expect(r.code).not.toBeNull();
      expect(r.stderr).toContain("PAYINTAKE_ADMIN_TOKEN");
      expect(r.stdout).not.toContain("payintake listening on");
    },
  );
});

describe("PAYMENT_PAGE_URL unset", () => {
  const WARNING = "PAYMENT_PAGE_URL is not set";
  const warningsIn = (out: string) =>
    out
      .split("\n")
      .filter((l) => l.includes(WARNING))
      .map((l) => JSON.parse(l));

  it("serve warns once, saying what to set; not when it is set", async () => {
    const store = await freshStore("sqlite");
    const unset = await startServe({ ...store.env, PAYMENT_PAGE_URL: undefined });
    expect(await stopServe(unset)).toEqual({ code: 0, signal: null });
    const lines = warningsIn(unset.child.stdout);
    expect(lines).toHaveLength(1);
    expect(lines[0].level).toBe(40);
    expect(lines[0].msg).toContain("relative payment_url");
    expect(lines[0].msg).toContain("set PAYMENT_PAGE_URL to the public base URL");

    const set = await startServe({ ...store.env, PAYMENT_PAGE_URL: "https://pay.example.com" });
    expect(await stopServe(set)).toEqual({ code: 0, signal: null });
    expect(set.child.stdout + set.child.stderr).not.toContain(WARNING);
  });

  it.runIf(STORES.includes("postgres"))(
    "a worker opens no hosted sessions: no warning; an api instance on the same store warns",
    async () => {
      const store = await freshStore("postgres");
      const worker = await startServe({
        ...store.env,
        PAYMENT_PAGE_URL: undefined,
        PAYINTAKE_ROLE: "worker",
      });
      expect(await stopServe(worker)).toEqual({ code: 0, signal: null });
      expect(worker.child.stdout + worker.child.stderr).not.toContain(WARNING);
      const api = await startServe({ ...store.env, PAYMENT_PAGE_URL: undefined, PAYINTAKE_ROLE: "api" });
      expect(await stopServe(api)).toEqual({ code: 0, signal: null });
      expect(warningsIn(api.child.stdout)).toHaveLength(1);
    },
  );
});

describe("the payment page on the console's origin", () => {
  const WARNING = "share one origin";
  const warningsIn = (out: string) =>
    out
      .split("\n")
      .filter((l) => l.includes(WARNING))
      .map((l) => JSON.parse(l));

  it("serve warns once when PAYMENT_PAGE_URL has the origin of PAYINTAKE_URL; not on separate hosts or loopback", async () => {
    const store = await freshStore("sqlite");
    const shared = await startServe({
      ...store.env,
      PAYMENT_PAGE_URL: "https://pay.example.com",
      PAYINTAKE_URL: "https://pay.example.com/",
    });
    expect(await stopServe(shared)).toEqual({ code: 0, signal: null });
    const lines = warningsIn(shared.child.stdout);
    expect(lines).toHaveLength(1);
    expect(lines[0].level).toBe(40);
    expect(lines[0].msg).toContain("https://pay.example.com");
    expect(lines[0].msg).toContain("serve the payment page from a host of its own");

    for (const [page, ops] of [
      ["https://pay.example.com", "https://ops.example.com"],
      ["https://example.com", "http://example.com"],
      ["http://localhost:8080", "http://localhost:8080"],
    ] as const) {
      const apart = await startServe({ ...store.env, PAYMENT_PAGE_URL: page, PAYINTAKE_URL: ops });
      expect(await stopServe(apart)).toEqual({ code: 0, signal: null });
      expect(apart.child.stdout + apart.child.stderr, `${page} beside ${ops}`).not.toContain(WARNING);
    }
  });
});

describe("zero-config embedded start", () => {
  it("generates master.key and admin.token in the data dir; the CLI finds the token there", async () => {
    const parent = mkdtempSync(join(tmpdir(), "payintake-zero-"));
    cleanups.push(() => rmSync(parent, { recursive: true, force: true }));
    // A directory that does not exist yet, as ./data on a fresh clone.
    const dataDir = join(parent, "data");
    const env = { PAYINTAKE_DATA_DIR: dataDir, PORT: "0" };

    const server = await startServe(env);
    // The owner's only, as docs/operations.md says: it was 0755 (the token file, written first, made it).
    expect(statSync(dataDir).mode & 0o077).toBe(0);
    const keyFile = join(dataDir, "master.key");
    const tokenFile = join(dataDir, "admin.token");
    expect(existsSync(keyFile)).toBe(true);
    expect(existsSync(tokenFile)).toBe(true);
    expect(readFileSync(keyFile, "utf8").trim()).toMatch(/^[0-9a-f]{64}$/);
    expect(readFileSync(tokenFile, "utf8").trim().length).toBeGreaterThanOrEqual(24);
    // Readable by the owner only.
    expect(statSync(keyFile).mode & 0o077).toBe(0);
    expect(statSync(tokenFile).mode & 0o077).toBe(0);
    // The fallback is announced, without printing the key itself.
    const key = readFileSync(keyFile, "utf8").trim();
    expect(server.child.stdout + server.child.stderr).toContain("PAYINTAKE_MASTER_KEY");
    expect(server.child.stdout + server.child.stderr).not.toContain(key);

    // The CLI: same data dir, no PAYINTAKE_ADMIN_TOKEN.
    const cli = operator(server.url, { PAYINTAKE_DATA_DIR: dataDir });
    const firm = await cli.ok("firm", "create", "--name", "Zero Config");
    expect(firm).toMatchObject({ id: expect.any(Number), secret_key: expect.any(String) });
    const creds = { apiKey: firm.api_key, secret: firm.secret_key };
    expect((await sendSigned(server.url, creds, { path: PROBE_PATH })).text).toBe(NOT_FOUND_TEXT);
    // The database and its WAL (full IBANs, operators' password hashes): the owner's only. They
    // were 0644.
    for (const f of ["payintake.db", "payintake.db-wal"]) {
      const path = join(dataDir, f);
      if (f === "payintake.db" || existsSync(path)) expect(statSync(path).mode & 0o077, f).toBe(0);
    }

    // A restart reuses the same files: the same token, and the firm's sealed secret still opens.
    const token = readFileSync(tokenFile, "utf8");
    expect(await stopServe(server)).toEqual({ code: 0, signal: null });
    const again = await startServe(env);
    expect(readFileSync(keyFile, "utf8").trim()).toBe(key);
    expect(readFileSync(tokenFile, "utf8")).toBe(token);
    const cli2 = operator(again.url, { PAYINTAKE_DATA_DIR: dataDir });
    expect((await cli2.ok("firm", "list")).firms).toContainEqual(expect.objectContaining({ id: firm.id }));
    const probe = await sendSigned(again.url, creds, { path: PROBE_PATH });
    expect({ status: probe.status, json: probe.json }).toEqual({
      status: 404,
      json: { success: false, message: "transaction not found" },
    });
    expect(await stopServe(again)).toEqual({ code: 0, signal: null });
  });

  it("the CLI without a token and without a generated token file exits 2 and says so", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "payintake-notoken-"));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const r = await runCli(["firm", "list"], {
      PAYINTAKE_DATA_DIR: dataDir,
      PAYINTAKE_URL: "http://127.0.0.1:9",
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("PAYINTAKE_ADMIN_TOKEN");
    // Where it looked: run from another folder, ./data is not the server's.
    expect(r.stderr).toContain(`looked for ${join(dataDir, "admin.token")}`);
  });
});
