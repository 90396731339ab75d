import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ConsoleSession, consoleCall, consoleLogin } from "../support/console.js";
import { STORES, startTestServer, type TestServer } from "../support/harness.js";
import { addAccount, createFirm, pendingDeposit, type TestFirm } from "../support/merchant.js";

const MINUTE = 60_000;
const IDLE_MINUTES = 5;
const IDLE_MS = IDLE_MINUTES * MINUTE;

/**
 * The console's idle sign-out (operators/idle.ts), through the real server on each store, its clock
 * stood still and moved by the test: a session ends after PAYINTAKE_CONSOLE_IDLE_MINUTES without
 * its operator's activity (changes, and reads the page marks with X-Operator-Active), whatever the
 * page fetches by itself meanwhile.
 */
describe.each(STORES)("console sessions end when their operator is idle (%s)", (kind) => {
  let server: TestServer;
  let firm: TestFirm;
  let operators = 0;

  beforeAll(async () => {
    server = await startTestServer(kind, {
      LOG_LEVEL: "warn",
      PAYINTAKE_CONSOLE_IDLE_MINUTES: String(IDLE_MINUTES),
      PAYINTAKE_CONSOLE_HEARTBEAT_MS: "100",
    });
    server.clock.frozenAtMs = Date.now();
    await addAccount(server);
    firm = await createFirm(server);
  });
  afterAll(async () => {
    await server?.close();
  });

  /** A new operator, signed in now. */
  async function signIn(): Promise<ConsoleSession & { settings: Record<string, unknown> }> {
    const email = `idle${++operators}@ops.example`;
    const created = await server.admin("POST", "/admin/v1/operators", {
      email,
      role: "operator",
      password: "idle-password-123",
    });
    expect(created.status).toBe(201);
    const s = await consoleLogin(server, email, "idle-password-123");
    expect(s.res.status).toBe(200);
    // The sign-in's answer tells the page its session's 12 hours too.
    expect(s.res.headers["x-session-ends-in"]).toBe(String(12 * 3600));
    return { cookie: s.cookie, csrf: s.csrf, settings: s.res.json };
  }
  /** A read the page makes by itself (a refresh, a poll). */
  const background = (s: ConsoleSession, path = "/ops/api/queue") => consoleCall(server, "GET", path, s);
  /** A read the operator's own input caused, as the page marks it. */
  const operatorRead = (s: ConsoleSession, path = "/ops/api/firm-names") =>
    consoleCall(server, "GET", path, { ...s, headers: { "x-operator-active": "1" } });
  /** The seconds the server says are left, read without counting as activity. */
  const secondsLeft = async (s: ConsoleSession) => {
    const res = await background(s, "/ops/api/me");
    expect(res.status).toBe(200);
    return Number(res.headers["x-session-idle-left"]);
  };
  const advance = (ms: number) => server.clock.advance(ms);

  it("tells the page the idle minutes with its other settings, at sign-in and in /me", async () => {
    const s = await signIn();
    expect(s.settings.session_idle_minutes).toBe(IDLE_MINUTES);
    const me = await background(s, "/ops/api/me");
    expect(me.json.session_idle_minutes).toBe(IDLE_MINUTES);
    expect(me.headers["x-session-idle-left"]).toBe(String(IDLE_MS / 1000));
  });

  it("an idle session is refused like an expired one, everywhere, and its live stream ends", async () => {
    const s = await signIn();
    const stream = await openStream(server, s.cookie);
    await stream.opened;
    advance(IDLE_MS - 1_000);
    const last = await background(s);
    expect(last.status).toBe(200);
    expect(last.headers["x-session-idle-left"]).toBe("1");
    expect(stream.ended()).toBe(false);

    advance(1_000);
    for (const [method, path] of [
      ["GET", "/ops/api/queue"],
      ["GET", "/ops/api/me"],
      ["POST", "/ops/api/transactions/1/approve"],
    ] as const) {
      const res = await consoleCall(server, method, path, { ...s, body: method === "POST" ? {} : undefined });
      expect(res.status).toBe(401);
      expect(res.json).toEqual({ success: false, code: "login_required", message: "Login required" });
    }
    // Marked as the operator's, a read cannot bring it back either.
    expect((await operatorRead(s)).status).toBe(401);
    await stream.closed;
    // Nor can a new stream be opened.
    expect(
      (await request(`${server.url}/ops/api/events`, { headers: { cookie: s.cookie } })).statusCode,
    ).toBe(401);
  });

  it("the operator's activity extends it: changes always, reads when the page marks them", async () => {
    const s = await signIn();
    advance(4 * MINUTE);
    expect((await operatorRead(s)).headers["x-session-idle-left"]).toBe(String(IDLE_MS / 1000));
    advance(4 * MINUTE);
    expect(await secondsLeft(s)).toBe(60);

    // A decision: a change, unmarked, counts.
    const id = await pendingDeposit(server, firm);
    const rejected = await consoleCall(server, "POST", `/ops/api/transactions/${id}/reject`, {
      ...s,
      body: { note: "no transfer" },
    });
    expect(rejected.status).toBe(200);
    expect(rejected.headers["x-session-idle-left"]).toBe(String(IDLE_MS / 1000));
    advance(IDLE_MS - 1_000);
    expect(await secondsLeft(s)).toBe(1);
    advance(1_000);
    expect((await background(s)).status).toBe(401);
  });

  it("the page's own traffic does not: polls, refreshes and the live stream leave an unattended console to end", async () => {
    const s = await signIn();
    const stream = await openStream(server, s.cookie);
    await stream.opened;
    for (let at = 0; at < IDLE_MS; at += 15_000) {
      for (const path of ["/ops/api/queue?type=deposit", "/ops/api/dashboard", "/ops/api/me"])
        expect((await background(s, path)).status).toBe(200);
      advance(15_000);
    }
    expect((await background(s)).status).toBe(401);
    await stream.closed;
  });

  it("activity is written at most once a minute", async () => {
    const s = await signIn();
    // Within the minute after the last record (the sign-in), the operator's reads write nothing:
    // the time left still counts from the sign-in.
    let at = 0;
    for (const next of [10_000, 30_000, 59_000]) {
      advance(next - at);
      at = next;
      await operatorRead(s);
      expect(await secondsLeft(s)).toBe((IDLE_MS - at) / 1000);
    }
    // A minute after it, the next one is written; then again none for a minute.
    advance(1_000);
    await operatorRead(s);
    expect(await secondsLeft(s)).toBe(IDLE_MS / 1000);
    advance(30_000);
    await Promise.all(Array.from({ length: 5 }, () => operatorRead(s)));
    expect(await secondsLeft(s)).toBe(IDLE_MS / 1000 - 30);
  });

  it("the 12 hours from sign-in stay, however active the operator, and every answer says how long is left", async () => {
    const s = await signIn();
    const endsIn = async () => Number((await operatorRead(s, "/ops/api/me")).headers["x-session-ends-in"]);
    expect(await endsIn()).toBe(12 * 3600);
    for (let at = 4 * MINUTE; at < 12 * 60 * MINUTE; at += 4 * MINUTE) {
      advance(4 * MINUTE);
      const res = await operatorRead(s, "/ops/api/me");
      expect(res.status).toBe(200);
      expect(res.headers["x-session-ends-in"]).toBe(String(12 * 3600 - at / 1000));
    }
    advance(4 * MINUTE);
    expect((await operatorRead(s, "/ops/api/me")).status).toBe(401);
  });
});

/** A live stream (GET /ops/api/events): `opened` once its first event came, `closed` once it ended. */
async function openStream(server: TestServer, cookie: string) {
  const res = await request(`${server.url}/ops/api/events`, { headers: { cookie } });
  expect(res.statusCode).toBe(200);
  let ended = false;
  let markOpened: () => void = () => {};
  const opened = new Promise<void>((resolve) => {
    markOpened = resolve;
  });
  const closed = (async () => {
    for await (const chunk of res.body) if (chunk.toString().includes("event: ready")) markOpened();
  })()
    .catch(() => {})
    .finally(() => {
      ended = true;
    });
  return { opened, closed, ended: () => ended };
}
