import http from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { adminCommands } from "../support/admin-commands.js";
import { STORES, type StoreKind, storeEnv } from "../support/harness.js";
import { depositBody } from "../support/merchant.js";
import {
  type Credentials,
  killAll,
  NOT_FOUND_TEXT,
  newNonce,
  PROBE_PATH,
  type Server,
  type SignedOptions,
  sendSigned,
  signed,
  sleep,
  startServe,
  stopServe,
} from "../support/spawn.js";
import { unreadByServer } from "../support/tcp-read.js";

/** Shutdown, crash, restart and several instances: the server as a process among processes. */
const cleanups: (() => Promise<void> | void)[] = [];

afterEach(async () => {
  await killAll();
  for (const c of cleanups.splice(0).reverse()) await c();
});

const EXTRA = { PAYINTAKE_ALLOW_PRIVATE_CALLBACKS: "true" };

async function freshStore(kind: StoreKind) {
  const store = await storeEnv(kind);
  cleanups.push(() => store.cleanup());
  return { ...store, env: { ...store.env, ...EXTRA } };
}

async function setUpFirm(server: Server, withAccount = true): Promise<{ id: number; creds: Credentials }> {
  const cli = adminCommands(server.url, server.env);
  if (withAccount) {
    await cli.addAccount({ bank: "Life Bank", holder: "Holder Life", iban: "TR950000000000000000000009" });
  }
  const firm = await cli.ok(
    "firm",
    "create",
    "--name",
    "Lifecycle",
    "--webhook-url",
    "http://127.0.0.1:9/callbacks",
    "--rate-limit",
    "100000",
  );
  return { id: firm.id, creds: { apiKey: firm.api_key, secret: firm.secret_key } };
}

interface Outcome {
  status?: number;
  body?: string;
  error?: string;
  /** ms since the epoch when the answer (or the error) arrived. */
  at: number;
}

/**
 * A signed request on its own connection with node:http, so the test knows when the bytes left
 * (`sent`) and can hold back the end of the body (`hold`) to keep a request in flight.
 */
function rawSigned(url: string, creds: Credentials, opts: SignedOptions, hold = false) {
  const r = signed(creds, opts);
  const u = new URL(url);
  const req = http.request({
    host: u.hostname,
    port: Number(u.port),
    method: r.method,
    path: opts.path,
    agent: false,
    headers: { ...r.headers, "content-length": String(r.body.length), connection: "close" },
  });
  const done = new Promise<Outcome>((resolve) => {
    req.on("response", (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => {
        body += c;
      });
      res.on("end", () => resolve({ status: res.statusCode, body, at: Date.now() }));
      res.on("error", (err) => resolve({ error: err.message, at: Date.now() }));
    });
    req.on("error", (err) =>
      resolve({ error: `${(err as NodeJS.ErrnoException).code ?? ""} ${err.message}`, at: Date.now() }),
    );
    req.setTimeout(25_000, () => req.destroy(new Error("client timeout")));
  });
  const sent = new Promise<void>((resolve) => req.on("finish", () => resolve()));
  const half = Math.floor(r.body.length / 2);
  const started = new Promise<void>((resolve) => {
    if (hold) req.write(r.body.subarray(0, half), () => resolve());
    else req.end(r.body, () => resolve());
  });
  return {
    done,
    sent,
    /** The headers (and, when held, the first half of the body) were handed to the OS. */
    started,
    release() {
      req.end(r.body.subarray(half));
    },
  };
}

describe.each(STORES)("graceful shutdown and restart on %s", (kind) => {
  it("SIGTERM while requests are in flight: they complete, the process exits 0, a restart works", async () => {
    const store = await freshStore(kind);
    const server = await startServe(store.env);
    const firm = await setUpFirm(server);

    // Requests whose headers the server already has, but whose bodies are still coming.
    const held = Array.from({ length: 5 }, () =>
      rawSigned(server.url, firm.creds, { path: "/paymentapi/v1/deposits", body: depositBody() }, true),
    );
    // Their first bytes are on the wire; the server has read them (and so parsed the headers).
    await Promise.all(held.map((h) => h.started));
    const port = Number(new URL(server.url).port);
    await expect
      .poll(() => {
        const unread = unreadByServer(port);
        return unread.length >= held.length && unread.every((n) => n === 0);
      })
      .toBe(true);

    const signalAt = Date.now();
    server.child.kill("SIGTERM");
    await server.child.waitForStdout(/SIGTERM received/, 10_000);
    // It waits for the requests in flight: still running a while after the signal.
    await sleep(300);
    expect(server.child.exit).toBeUndefined();
    for (const h of held) h.release();

    const outcomes = await Promise.all(held.map((h) => h.done));
    expect(await server.child.waitExit(20_000)).toEqual({ code: 0, signal: null });
    for (const o of outcomes) {
      expect(o.error).toBeUndefined();
      expect(o.status).toBe(200);
      expect(JSON.parse(o.body as string)).toMatchObject({
        success: true,
        message: "Yatırım talebiniz alındı",
      });
      expect(o.at).toBeGreaterThan(signalAt);
    }

    // Restart on the same data: the lock was released, and the deposits answered were kept.
    const again = await startServe(store.env);
    const list = await adminCommands(again.url, again.env).ok("tx", "list", "--firm", String(firm.id));
    expect(list.transactions).toHaveLength(held.length);
    expect(await stopServe(again)).toEqual({ code: 0, signal: null });
  });

  it("SIGTERM during a burst of concurrent deposits: exit 0, every deposit answered is kept, restart works", async () => {
    const store = await freshStore(kind);
    const server = await startServe(store.env);
    const firm = await setUpFirm(server);

    const burst = Array.from({ length: 80 }, () =>
      rawSigned(server.url, firm.creds, { path: "/paymentapi/v1/deposits", body: depositBody() }),
    );
    await Promise.all(burst.map((b) => b.sent));
    server.child.kill("SIGTERM");

    const outcomes = await Promise.all(burst.map((b) => b.done));
    expect(await server.child.waitExit(20_000)).toEqual({ code: 0, signal: null });
    // Whatever got an HTTP answer got a whole one: the deposit's, or 503 for one not started.
    for (const o of outcomes) if (o.status !== undefined) expect([200, 503]).toContain(o.status);
    const accepted = outcomes.filter((o) => o.status === 200);
    for (const o of accepted) expect(JSON.parse(o.body as string)).toMatchObject({ success: true });

    // Restart on the same data: every deposit answered 200 was kept, and only those.
    const again = await startServe(store.env);
    const list = await adminCommands(again.url, again.env).ok(
      "tx",
      "list",
      "--firm",
      String(firm.id),
      "--limit",
      "1000",
    );
    expect(list.transactions).toHaveLength(accepted.length);
    expect(await stopServe(again)).toEqual({ code: 0, signal: null });
  });

  it("SIGTERM reaching a busy server: no request sent before the signal gets a connection reset", async () => {
    const store = await freshStore(kind);
    const server = await startServe(store.env);
    const firm = await setUpFirm(server);

    // The server is busy (here: stopped) while complete requests reach its socket and the signal
    // comes; 'sent' means each request's last byte was handed to the OS before the signal.
    server.child.kill("SIGSTOP");
    const burst = Array.from({ length: 50 }, () =>
      rawSigned(server.url, firm.creds, { path: "/paymentapi/v1/deposits", body: depositBody() }),
    );
    try {
      await Promise.all(burst.map((b) => b.sent));
      // Sent to a stopped process, the signal is pending (kill returns once it is): delivered when
      // the process goes on, with the requests already in its socket.
      server.child.kill("SIGTERM");
    } finally {
      server.child.kill("SIGCONT");
    }

    const outcomes = await Promise.all(burst.map((b) => b.done));
    expect(await server.child.waitExit(20_000)).toEqual({ code: 0, signal: null });

    // Each must get an HTTP answer: the deposit's, or 503 for one the server chose not to start.
    const errors = outcomes.flatMap((o) => (o.error ? [o.error] : []));
    expect({ total: outcomes.length, connectionErrors: errors.length, examples: errors.slice(0, 2) }).toEqual(
      {
        total: 50,
        connectionErrors: 0,
        examples: [],
      },
    );
    for (const o of outcomes) expect([200, 503]).toContain(o.status);

    const again = await startServe(store.env);
    const list = await adminCommands(again.url, again.env).ok("tx", "list", "--firm", String(firm.id));
    expect(list.transactions).toHaveLength(outcomes.filter((o) => o.status === 200).length);
    expect(await stopServe(again)).toEqual({ code: 0, signal: null });
  });

  it("SIGKILL, then a restart on the same data: no stale lock, committed data and used nonces survive", async () => {
    const store = await freshStore(kind);
    const server = await startServe(store.env);
    const firm = await setUpFirm(server, false);
    const nonce = newNonce();
    const timestamp = String(Math.floor(Date.now() / 1000));
    const first = await sendSigned(server.url, firm.creds, { path: PROBE_PATH, nonce, timestamp });
    expect(first.status, first.text).toBe(404);

    server.child.kill("SIGKILL");
    expect(await server.child.waitExit(10_000)).toEqual({ code: null, signal: "SIGKILL" });

    const again = await startServe(store.env);
    const firms = await adminCommands(again.url, again.env).ok("firm", "list");
    expect(firms.firms).toContainEqual(expect.objectContaining({ id: firm.id }));
    const replay = await sendSigned(again.url, firm.creds, { path: PROBE_PATH, nonce, timestamp });
    expect({ status: replay.status, json: replay.json }).toEqual({
      status: 401,
      json: { success: false, message: "Nonce already used" },
    });
    const fresh = await sendSigned(again.url, firm.creds, { path: PROBE_PATH });
    expect({ status: fresh.status, json: fresh.json }).toEqual({
      status: 404,
      json: { success: false, message: "transaction not found" },
    });
    expect(await stopServe(again)).toEqual({ code: 0, signal: null });
  });

  it("a nonce used before a clean restart is refused after it (within the 300 s window)", async () => {
    const store = await freshStore(kind);
    const server = await startServe(store.env);
    const firm = await setUpFirm(server, false);
    const nonce = newNonce();
    const timestamp = String(Math.floor(Date.now() / 1000));
    const first = await sendSigned(server.url, firm.creds, { path: PROBE_PATH, nonce, timestamp });
    expect({ status: first.status, json: first.json }).toEqual({
      status: 404,
      json: { success: false, message: "transaction not found" },
    });
    // Same server, same nonce: refused.
    const again1 = await sendSigned(server.url, firm.creds, { path: PROBE_PATH, nonce, timestamp });
    expect({ status: again1.status, json: again1.json }).toEqual({
      status: 401,
      json: { success: false, message: "Nonce already used" },
    });
    expect(await stopServe(server)).toEqual({ code: 0, signal: null });

    const restarted = await startServe(store.env);
    const replay = await sendSigned(restarted.url, firm.creds, { path: PROBE_PATH, nonce, timestamp });
    expect({ status: replay.status, json: replay.json }).toEqual({
      status: 401,
      json: { success: false, message: "Nonce already used" },
    });
    // A deposit's nonce too: the replayed deposit is refused before anything else is looked at.
    const depNonce = newNonce();
    const depTs = String(Math.floor(Date.now() / 1000));
    const body = depositBody();
    const dep = await sendSigned(restarted.url, firm.creds, {
      path: "/paymentapi/v1/deposits",
      body,
      nonce: depNonce,
      timestamp: depTs,
    });
    expect(dep.status).not.toBe(401);
    expect(await stopServe(restarted)).toEqual({ code: 0, signal: null });
    const third = await startServe(store.env);
    const depReplay = await sendSigned(third.url, firm.creds, {
      path: "/paymentapi/v1/deposits",
      body,
      nonce: depNonce,
      timestamp: depTs,
    });
    expect({ status: depReplay.status, json: depReplay.json }).toEqual({
      status: 401,
      json: { success: false, message: "Nonce already used" },
    });
    expect(await stopServe(third)).toEqual({ code: 0, signal: null });
  });
});

describe.runIf(STORES.includes("postgres"))("two server processes on one PostgreSQL schema", () => {
  it("start together on a fresh schema, and share used nonces both ways", async () => {
    const store = await freshStore("postgres");
    // Both migrate the fresh schema at the same time.
    const [a, b] = await Promise.all([startServe(store.env), startServe(store.env)]);
    expect(a.url).not.toBe(b.url);
    const firm = await setUpFirm(a, false);

    const nonce = newNonce();
    const timestamp = String(Math.floor(Date.now() / 1000));
    const onA = await sendSigned(a.url, firm.creds, { path: PROBE_PATH, nonce, timestamp });
    expect({ status: onA.status, json: onA.json }).toEqual({
      status: 404,
      json: { success: false, message: "transaction not found" },
    });
    const onB = await sendSigned(b.url, firm.creds, { path: PROBE_PATH, nonce, timestamp });
    expect({ status: onB.status, json: onB.json }).toEqual({
      status: 401,
      json: { success: false, message: "Nonce already used" },
    });

    const nonce2 = newNonce();
    const first = await sendSigned(b.url, firm.creds, { path: PROBE_PATH, nonce: nonce2, timestamp });
    expect(first.status, first.text).toBe(404);
    const second = await sendSigned(a.url, firm.creds, { path: PROBE_PATH, nonce: nonce2, timestamp });
    expect({ status: second.status, json: second.json }).toEqual({
      status: 401,
      json: { success: false, message: "Nonce already used" },
    });

    // Concurrent use of one nonce on both instances: exactly one passes.
    const nonce3 = newNonce();
    const race = await Promise.all(
      [a, b, a, b].map((s) => sendSigned(s.url, firm.creds, { path: PROBE_PATH, nonce: nonce3, timestamp })),
    );
    expect(race.filter((r) => r.status === 404)).toHaveLength(1);
    expect(race.filter((r) => r.status === 401)).toHaveLength(3);

    expect(await stopServe(a)).toEqual({ code: 0, signal: null });
    expect(await stopServe(b)).toEqual({ code: 0, signal: null });
  });

  it("a secret rotated through one instance stops working on the other within 1 second", async () => {
    const store = await freshStore("postgres");
    const [a, b] = await Promise.all([startServe(store.env), startServe(store.env)]);
    const firm = await setUpFirm(a, false);
    // B has the firm in its lookup cache now.
    expect((await sendSigned(b.url, firm.creds, { path: PROBE_PATH })).text).toBe(NOT_FOUND_TEXT);

    const rotated = await adminCommands(a.url, a.env).ok("firm", "rotate-secret", String(firm.id));
    // The contract's bound for an operator change to reach every instance.
    await sleep(1_000);
    const old = await sendSigned(b.url, firm.creds, { path: PROBE_PATH });
    expect({ status: old.status, json: old.json }).toEqual({
      status: 401,
      json: { success: false, message: "Invalid signature" },
    });
    const fresh = await sendSigned(
      b.url,
      { ...firm.creds, secret: rotated.secret_key },
      { path: PROBE_PATH },
    );
    expect(fresh.status, fresh.text).toBe(404);

    expect(await stopServe(a)).toEqual({ code: 0, signal: null });
    expect(await stopServe(b)).toEqual({ code: 0, signal: null });
  });

  it("one instance stopping leaves the other serving", async () => {
    const store = await freshStore("postgres");
    const [a, b] = await Promise.all([startServe(store.env), startServe(store.env)]);
    const firm = await setUpFirm(a, false);
    expect(await stopServe(a)).toEqual({ code: 0, signal: null });
    const probe = await sendSigned(b.url, firm.creds, { path: PROBE_PATH });
    expect(probe.status, probe.text).toBe(404);
    expect(await stopServe(b)).toEqual({ code: 0, signal: null });
  });
});
