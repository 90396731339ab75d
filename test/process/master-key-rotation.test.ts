import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { isCheckOf } from "../../src/crypto/key-check.js";
import { loginWindows } from "../../src/store/migrations/20261124T1900_login_windows.js";
import { adminCommands } from "../support/admin-commands.js";
import { consoleCall, consoleLogin } from "../support/console.js";
import { PG_BASE_URL, STORES, type StoreKind, storeEnv, type TestServer } from "../support/harness.js";
import { sealV1 } from "../support/legacy-seal.js";
import { depositBody } from "../support/merchant.js";
import {
  type Credentials,
  killAll,
  NOT_FOUND_TEXT,
  oneJsonObject,
  PROBE_PATH,
  runCli,
  type Server,
  sendSigned,
  startServe,
  stopServe,
} from "../support/spawn.js";
import { sealedState, withStore } from "../support/stored.js";
import { startTcpProxy } from "../support/tcp-proxy.js";

/**
 * `payintake master-key rotate` on a store a real server wrote, run as the built CLI: the store's
 * secrets move to the new key (a server with it serves the same firms and shows the same national
 * ids; one with the old key is refused), and it refuses, changing nothing, while a server runs or
 * when the current key is not the store's. On the embedded default the data directory's master.key
 * follows, and a rotation cut between the commit and the file's rename is finished at the next start.
 */
const cleanups: (() => Promise<void> | void)[] = [];

afterEach(async () => {
  await killAll();
  for (const c of cleanups.splice(0).reverse()) await c();
});

type Env = Record<string, string | undefined>;

const newKey = () => randomBytes(32).toString("hex");
const NATIONAL_ID = "12345678901";
const ADMIN_EMAIL = "keys@ops.example";
/** The firm's webhook is on loopback (nothing listens there; the callback is never looked at). */
const PRIVATE_CALLBACKS = { PAYINTAKE_ALLOW_PRIVATE_CALLBACKS: "true" };
/** Each test starts servers several times (on two cores shared with other suites). */
const SEVERAL_STARTS_MS = 120_000;

/** A migration that only adds a table: undone, it is pending again, as for a newer version. */
const PENDING = loginWindows.version;
const appliedMigrations = (env: Env) => withStore(env, (s) => s.appliedMigrations());

function rotate(env: Env, ...flags: string[]) {
  return runCli(["master-key", "rotate", ...flags], { ...env, PORT: undefined }, 60_000);
}

interface Written {
  creds: Credentials;
  reference: string;
  transactionId: number;
  adminPassword: string;
  /** The deposit's payment code as the server answered it: keyed by the store's own key. */
  paymentCode: string;
}

/**
 * A firm that answers with payment codes, an account, one deposit with a national id, and an admin
 * operator; written by a server.
 */
async function writeThroughServer(server: Server): Promise<Written> {
  const cli = adminCommands(server.url, server.env);
  const firm = await cli.ok(
    "firm",
    "create",
    "--name",
    "Rotating Shop",
    "--webhook-url",
    "http://127.0.0.1:9/callbacks",
  );
  const creds = { apiKey: firm.api_key, secret: firm.secret_key };
  await cli.ok("firm", "update", String(firm.id), "--answer-payment-code", "true");
  await cli.addAccount({ bank: "Ziraat", holder: "Holder", iban: "TR330006100519786457841326" });
  const body = depositBody({ national_id: NATIONAL_ID });
  const deposit = await sendSigned(server.url, creds, { path: "/paymentapi/v1/deposits", body });
  expect(deposit.status, deposit.text).toBe(200);
  const listed = await cli.ok("tx", "list");
  const admin = await cli.ok("operator", "create", "--email", ADMIN_EMAIL, "--role", "admin");
  return {
    creds,
    reference: body.reference as string,
    transactionId: listed.transactions[0].id,
    adminPassword: admin.password,
    paymentCode: deposit.json.payment_code,
  };
}

/** What a server shows of the data: all of it needs the sealed secrets opened with its key. */
async function expectServed(server: Server, w: Written) {
  expect((await sendSigned(server.url, w.creds, { path: PROBE_PATH })).text).toBe(NOT_FOUND_TEXT);
  const byReference = await sendSigned(server.url, w.creds, {
    path: `/paymentapi/v1/transactions/by-reference/${w.reference}`,
  });
  expect(byReference.status, byReference.text).toBe(200);
  // The payment code key is sealed like any secret: a rotation leaves every code as it was.
  expect(byReference.json.data.payment_code).toBe(w.paymentCode);
  const shown = await adminCommands(server.url, server.env).ok("tx", "show", String(w.transactionId));
  expect(shown.national_id).toBe("12***01");
  const asServer = { url: server.url } as TestServer;
  const login = await consoleLogin(asServer, ADMIN_EMAIL, w.adminPassword);
  expect(login.res.status).toBe(200);
  const full = await consoleCall(asServer, "POST", `/ops/api/transactions/${w.transactionId}/national-id`, {
    cookie: login.cookie,
    csrf: login.csrf,
  });
  expect(full.json).toEqual({ national_id_full: NATIONAL_ID });
}

/** `serve` that must not start: exit 2 naming PAYINTAKE_MASTER_KEY. */
async function expectRefusedServe(env: Env) {
  const r = await runCli(["serve"], { PORT: "0", HOST: "127.0.0.1", ...env });
  expect(r.code, r.stderr).toBe(2);
  expect(r.stderr).toContain("PAYINTAKE_MASTER_KEY");
  expect(r.stdout).not.toContain("payintake listening on");
}

/** The sealed values in a sealedState, firms' first. */
const sealedValues = (state: Record<string, unknown[]>) =>
  Object.entries(state)
    .filter(([table]) => table !== "store_keys")
    .flatMap(([, rows]) =>
      (rows as Record<string, unknown>[]).flatMap((row) =>
        Object.entries(row).flatMap(([k, v]) => (k !== "id" && typeof v === "string" && v !== "" ? [v] : [])),
      ),
    );

const masterCheck = async (env: Env) =>
  (await withStore(env, (s) => s.db.selectFrom("store_keys").select("key_check").executeTakeFirst()))
    ?.key_check as string;

async function freshStore(kind: StoreKind): Promise<Env> {
  const store = await storeEnv(kind);
  cleanups.push(() => store.cleanup());
  return { ...store.env, ...PRIVATE_CALLBACKS };
}

describe.each(STORES)("payintake master-key rotate on %s", (kind) => {
  it(
    "refused while a server runs; then a server with the new key serves the firm and its national ids, and the old key is refused",
    async () => {
      const env = await freshStore(kind);
      const oldKey = env.PAYINTAKE_MASTER_KEY as string;
      const server = await startServe(env);
      const written = await writeThroughServer(server);

      const next = newKey();
      const busy = await rotate({ ...env, PAYINTAKE_NEW_MASTER_KEY: next });
      expect(busy.code, busy.stderr).toBe(1);
      expect(busy.stderr).toMatch(/a payintake server is running on .*stop .*nothing was changed/);
      expect(busy.stdout).toBe("");
      expect(await stopServe(server)).toEqual({ code: 0, signal: null });
      // An upgraded store holds both formats: the firm's secret as versions before sealing contexts
      // wrote it (v1), the national id as this one does (v2, for its transaction).
      await withStore(env, (s) =>
        s.db
          .updateTable("firms")
          .set({ secret_sealed: sealV1(Buffer.from(oldKey, "hex"), written.creds.secret) })
          .execute(),
      );
      const before = await sealedState(env);
      expect(sealedValues(before).map((v) => v.slice(0, 3))).toEqual(["v1:", "v2:", "v2:"]);
      expect(isCheckOf(Buffer.from(oldKey, "hex"), await masterCheck(env))).toBe(true);

      const r = await rotate({ ...env, PAYINTAKE_NEW_MASTER_KEY: next });
      expect(r.code, r.stderr).toBe(0);
      const report = oneJsonObject(r.stdout);
      expect(report).toEqual({
        rotated: true,
        secrets: 3,
        by_column: expect.objectContaining({
          "firms.secret_sealed": 1,
          "transactions.national_id_sealed": 1,
          "payment_code_keys.key_sealed": 1,
          "payment_sessions.request_sealed": 0,
        }),
      });
      // The secret was moved, not just the check: the firm's, the deposit's and the code key's
      // values changed.
      const after = await sealedState(env);
      expect(after.firms).not.toEqual(before.firms);
      expect(after.transactions).not.toEqual(before.transactions);
      expect(after.payment_code_keys).not.toEqual(before.payment_code_keys);
      // Re-sealed for their rows: no v1 value is left.
      expect(sealedValues(after).map((v) => v.slice(0, 3))).toEqual(["v2:", "v2:", "v2:"]);
      for (const key of [oldKey, next]) expect(r.stdout + r.stderr).not.toContain(key);

      await expectRefusedServe(env);
      const rotated = await startServe({ ...env, PAYINTAKE_MASTER_KEY: next });
      await expectServed(rotated, written);
      // Recorded as the CLI's, under the name it was given (never as a signed-in operator's).
      const admin = await consoleLogin(
        { url: rotated.url } as TestServer,
        ADMIN_EMAIL,
        written.adminPassword,
      );
      const audit = await consoleCall(
        { url: rotated.url } as TestServer,
        "GET",
        "/ops/api/audit?action=store.rotate_master_key",
        {
          cookie: admin.cookie,
        },
      );
      expect(audit.json.map((e: { actor: string }) => e.actor)).toEqual([expect.stringMatching(/^cli:/)]);
      expect(await stopServe(rotated)).toEqual({ code: 0, signal: null });
    },
    SEVERAL_STARTS_MS,
  );

  it(
    "a current key that is not the store's is refused with exit 2, naming PAYINTAKE_MASTER_KEY, and changes nothing",
    async () => {
      const env = await freshStore(kind);
      const server = await startServe(env);
      const written = await writeThroughServer(server);
      expect(await stopServe(server)).toEqual({ code: 0, signal: null });
      // As a newer version finds the store: a migration of its pending (it applied it first, then refused).
      await withStore(env, async (s) => {
        await s.db.schema.dropTable("login_windows").execute();
        await s.db.deleteFrom("schema_migrations").where("version", "=", PENDING).execute();
      });
      const before = await sealedState(env);

      const wrong = newKey();
      const next = newKey();
      const r = await rotate({ ...env, PAYINTAKE_MASTER_KEY: wrong, PAYINTAKE_NEW_MASTER_KEY: next });
      expect(r.code, r.stderr).toBe(2);
      expect(await appliedMigrations(env)).not.toContain(PENDING);
      expect(r.stderr).toContain(
        "PAYINTAKE_MASTER_KEY: the current key is not the key this store's secrets are sealed with; nothing was changed",
      );
      for (const key of [wrong, next, env.PAYINTAKE_MASTER_KEY as string])
        expect(r.stdout + r.stderr).not.toContain(key);
      expect(await sealedState(env)).toEqual(before);

      const again = await startServe(env);
      await expectServed(again, written);
    },
    SEVERAL_STARTS_MS,
  );
});

describe.runIf(STORES.includes("postgres"))("an instance that missed a rotation (postgres)", () => {
  it(
    "cut off from the database while an operator rotated, it stops with exit 2 once it is back",
    async () => {
      const env = await freshStore("postgres");
      const base = new URL(PG_BASE_URL);
      const proxy = await startTcpProxy({ host: base.hostname, port: Number(base.port || 5432) });
      cleanups.push(() => proxy.close());
      const viaProxy = new URL(env.DATABASE_URL as string);
      viaProxy.port = String(proxy.port);
      const server = await startServe({ ...env, DATABASE_URL: viaProxy.toString() });
      await writeThroughServer(server);

      proxy.down();
      // Its serving lock went with its session: the rotation (run by someone who did not stop it) passes.
      const next = newKey();
      let r = await rotate({ ...env, PAYINTAKE_NEW_MASTER_KEY: next });
      for (let i = 0; r.code !== 0 && i < 20; i++) {
        await new Promise((resolve) => setTimeout(resolve, 250));
        r = await rotate({ ...env, PAYINTAKE_NEW_MASTER_KEY: next });
      }
      expect(r.code, r.stderr).toBe(0);
      proxy.up();
      expect(await server.child.waitExit(20_000)).toEqual({ code: 2, signal: null });
      expect(server.child.stderr).toContain("start it with the new PAYINTAKE_MASTER_KEY");
    },
    SEVERAL_STARTS_MS,
  );
});

describe("the embedded default: the data directory's master.key", () => {
  function dataDir(): Env {
    const dir = mkdtempSync(join(tmpdir(), "payintake-rotate-"));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    return { PAYINTAKE_DATA_DIR: dir, ...PRIVATE_CALLBACKS };
  }

  /** A store with the embedded default's master.key, written through a server that has stopped. */
  async function writtenWithKeyFile() {
    const env = dataDir();
    const keyFile = join(env.PAYINTAKE_DATA_DIR as string, "master.key");
    const server = await startServe(env);
    const written = await writeThroughServer(server);
    expect(await stopServe(server)).toEqual({ code: 0, signal: null });
    return { env, keyFile, written, oldKey: readFileSync(keyFile, "utf8").trim() };
  }

  it(
    "--generate replaces master.key, shows the new key once, and the server goes on with the file",
    async () => {
      const { env, keyFile, written, oldKey } = await writtenWithKeyFile();

      const r = await rotate(env, "--generate");
      expect(r.code, r.stderr).toBe(0);
      const report = oneJsonObject(r.stdout);
      expect(report).toMatchObject({ rotated: true, secrets: 3, key_file: keyFile });
      expect(report.new_master_key).toMatch(/^[0-9a-f]{64}$/);
      expect(readFileSync(keyFile, "utf8").trim()).toBe(report.new_master_key);
      expect(existsSync(`${keyFile}.new`)).toBe(false);
      expect(r.stdout + r.stderr).not.toContain(oldKey);

      await expectRefusedServe({ ...env, PAYINTAKE_MASTER_KEY: oldKey });
      const again = await startServe(env);
      await expectServed(again, written);
    },
    SEVERAL_STARTS_MS,
  );

  it(
    "a rotation cut after its commit (master.key.new not yet renamed) is finished at start; one cut before it is undone",
    async () => {
      const { env, keyFile, written, oldKey } = await writtenWithKeyFile();

      // Cut before the commit: master.key.new holds a key the store never used.
      const unused = newKey();
      writeFileSync(`${keyFile}.new`, `${unused}\n`, { mode: 0o600 });
      const undone = await startServe(env);
      await expectServed(undone, written);
      expect(await stopServe(undone)).toEqual({ code: 0, signal: null });
      expect(existsSync(`${keyFile}.new`)).toBe(false);
      expect(readFileSync(keyFile, "utf8").trim()).toBe(oldKey);

      // Cut after the commit: the store is under the new key, master.key still holds the old one.
      const r = await rotate(env, "--generate");
      expect(r.code, r.stderr).toBe(0);
      const next = oneJsonObject(r.stdout).new_master_key as string;
      writeFileSync(`${keyFile}.new`, `${next}\n`, { mode: 0o600 });
      writeFileSync(keyFile, `${oldKey}\n`, { mode: 0o600 });
      const finished = await startServe(env);
      await expectServed(finished, written);
      expect(await stopServe(finished)).toEqual({ code: 0, signal: null });
      expect(readFileSync(keyFile, "utf8").trim()).toBe(next);
      expect(existsSync(`${keyFile}.new`)).toBe(false);

      // The rotation command finishes one the same way before it starts its own.
      writeFileSync(`${keyFile}.new`, `${next}\n`, { mode: 0o600 });
      writeFileSync(keyFile, `${oldKey}\n`, { mode: 0o600 });
      const onwards = await rotate(env, "--generate");
      expect(onwards.code, onwards.stderr).toBe(0);
      const last = await startServe(env);
      await expectServed(last, written);
    },
    SEVERAL_STARTS_MS,
  );
});

describe("payintake master-key rotate: usage", () => {
  it("refuses, before opening any store, what it cannot do as asked: exit 2 with the reason", async () => {
    const dir = mkdtempSync(join(tmpdir(), "payintake-rotate-usage-"));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const key = newKey();
    const cases: [Env, string[], string][] = [
      [{}, [], "the new key is missing: set PAYINTAKE_NEW_MASTER_KEY"],
      [{ PAYINTAKE_NEW_MASTER_KEY: newKey() }, ["--generate"], "not both"],
      [{ PAYINTAKE_MASTER_KEY: key }, ["--generate"], "--generate is for the embedded store's master.key"],
      [{ PAYINTAKE_NEW_MASTER_KEY: "abc" }, [], "PAYINTAKE_NEW_MASTER_KEY must be 64 hex characters"],
      [{ PAYINTAKE_NEW_MASTER_KEY: newKey() }, ["--force"], "unknown option --force"],
      [
        { DATABASE_URL: PG_BASE_URL, PAYINTAKE_NEW_MASTER_KEY: newKey() },
        [],
        "PAYINTAKE_MASTER_KEY: required with DATABASE_URL",
      ],
    ];
    for (const [env, flags, message] of cases) {
      const r = await rotate({ PAYINTAKE_DATA_DIR: dir, ...env }, ...flags);
      expect({ code: r.code, stdout: r.stdout }, r.stderr).toEqual({ code: 2, stdout: "" });
      expect(r.stderr).toContain(message);
      expect(r.stderr).not.toContain(key);
    }
    // None of them opened the store: the data directory is as it was.
    expect(existsSync(join(dir, "payintake.db"))).toBe(false);
  });
});
