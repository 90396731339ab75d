import { connect } from "node:net";
import pg from "pg";
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { consoleCall, consoleLogin } from "../support/console.js";
import { STORES, startTestServer, type TestServer } from "../support/harness.js";
import {
  addAccount,
  createFirm,
  depositBody,
  pendingDeposit,
  send,
  type TestFirm,
} from "../support/merchant.js";

/** An open /ops/api/events stream: its frames as they arrive ("retry: …\nevent: ready…", "event: queue\ndata: changed"). */
async function openStream(server: TestServer, cookie: string | undefined) {
  const res = await request(`${server.url}/ops/api/events`, {
    headers: cookie ? { cookie } : {},
  });
  const frames: string[] = [];
  let ended = false;
  let buffer = "";
  const reading = (async () => {
    for await (const chunk of res.body) {
      buffer += chunk.toString();
      for (let at = buffer.indexOf("\n\n"); at >= 0; at = buffer.indexOf("\n\n")) {
        frames.push(buffer.slice(0, at));
        buffer = buffer.slice(at + 2);
      }
    }
  })()
    .catch(() => {})
    .finally(() => {
      ended = true;
    });
  const events = () => frames.filter((f) => f.startsWith("event: queue"));
  return {
    res,
    frames,
    events,
    ready: () => frames.some((f) => /^retry: \d+\nevent: ready\ndata: open$/.test(f)),
    ended: () => ended,
    async until(what: () => boolean, ms = 3_000) {
      const deadline = Date.now() + ms;
      while (!what()) {
        if (Date.now() > deadline) throw new Error(`not within ${ms} ms; frames: ${JSON.stringify(frames)}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    async close() {
      res.body.destroy();
      await reading;
    },
  };
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Whether the server at `url` takes a TCP connection. */
function accepts(url: string): Promise<boolean> {
  const { port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), "127.0.0.1", () => {
      socket.destroy();
      resolve(true);
    });
    socket.on("error", () => resolve(false));
  });
}

/** Sends GET /ops/api/events and cuts the connection at once, while its session is being looked up. */
async function openAndAbort(server: TestServer, cookie: string) {
  const { port } = new URL(server.url);
  await new Promise<void>((resolve) => {
    const socket = connect(Number(port), "127.0.0.1", () => {
      socket.write(`GET /ops/api/events HTTP/1.1\r\nHost: x\r\nCookie: ${cookie}\r\n\r\n`, () => {
        socket.resetAndDestroy();
        resolve();
      });
    });
    socket.on("error", () => {});
  });
}

describe.each(STORES)("console live stream of queue changes (%s)", (kind) => {
  let server: TestServer;
  let firm: TestFirm;
  const signIn = async (email: string) => {
    const s = await consoleLogin(server, email, `${email}-password-123`);
    expect(s.res.status).toBe(200);
    return s;
  };

  beforeAll(async () => {
    server = await startTestServer(kind, { LOG_LEVEL: "warn", PAYINTAKE_CONSOLE_HEARTBEAT_MS: "300" });
    await addAccount(server);
    firm = await createFirm(server);
    for (const email of ["op@ops.example", "other@ops.example", "gone@ops.example", "many@ops.example"]) {
      const res = await server.admin("POST", "/admin/v1/operators", {
        email,
        role: "operator",
        password: `${email}-password-123`,
      });
      expect(res.status).toBe(201);
    }
  });
  afterAll(async () => {
    await server?.close();
  });

  /** A server of the test's own, which it stops, with an operator signed in. */
  async function ownServerSignedIn(env: Record<string, string> = {}) {
    const own = await startTestServer(kind, { LOG_LEVEL: "warn", ...env });
    try {
      const res = await own.admin("POST", "/admin/v1/operators", {
        email: "op@ops.example",
        role: "operator",
        password: "op@ops.example-password-123",
      });
      expect(res.status).toBe(201);
      return { own, s: await consoleLogin(own, "op@ops.example", "op@ops.example-password-123") };
    } catch (err) {
      await own.close().catch(() => {});
      throw err;
    }
  }

  const deposit = () => pendingDeposit(server, firm);

  it("needs a session: 401 in the envelope, no stream", async () => {
    const res = await request(`${server.url}/ops/api/events`);
    expect(res.statusCode).toBe(401);
    expect(res.headers["content-type"]).toMatch(/^application\/json/);
    expect(await res.body.json()).toEqual({
      success: false,
      code: "login_required",
      message: "Login required",
    });
  });

  it("tells a signed-in console of a new deposit and of a decision, with no data of their own", async () => {
    const s = await signIn("op@ops.example");
    const stream = await openStream(server, s.cookie);
    expect(stream.res.statusCode).toBe(200);
    expect(stream.res.headers["content-type"]).toBe("text/event-stream; charset=utf-8");
    expect(stream.res.headers["cache-control"]).toBe("no-store");
    await stream.until(stream.ready);

    const id = await deposit();
    await stream.until(() => stream.events().length >= 1);
    expect(stream.events()[0]).toBe("event: queue\ndata: changed");

    const seen = stream.events().length;
    const approve = await consoleCall(server, "POST", `/ops/api/transactions/${id}/approve`, {
      cookie: s.cookie,
      csrf: s.csrf,
      body: {},
    });
    expect(approve.status).toBe(200);
    await stream.until(() => stream.events().length > seen);
    // Heartbeats keep proxies from cutting an idle stream.
    await stream.until(() => stream.frames.includes(": heartbeat"));
    await stream.close();
  });

  it("gathers a burst of deposits into a few notices", async () => {
    const s = await signIn("op@ops.example");
    const stream = await openStream(server, s.cookie);
    await stream.until(stream.ready);
    // Notices of earlier tests' deposits, gathered for 250 ms, come before the count starts.
    await pause(400);
    const before = stream.events().length;
    const started = Date.now();
    await Promise.all(Array.from({ length: 20 }, () => deposit()));
    const seconds = (Date.now() - started) / 1000;
    await stream.until(() => stream.events().length > before);
    // The burst's last notice comes up to 250 ms after its deposit: all of them are in.
    await pause(600);
    // One notice per 250 ms at most, however long the 20 deposits took (plus the last one's).
    expect(stream.events().length - before).toBeLessThanOrEqual(Math.ceil((seconds + 0.6) / 0.25) + 1);
    expect(stream.events().length - before).toBeLessThan(20);
    await stream.close();
  });

  it("a test firm's deposits are in no queue: they tell no console", async () => {
    const sandbox = await createFirm(server, { sandbox: true });
    const s = await signIn("op@ops.example");
    const stream = await openStream(server, s.cookie);
    await stream.until(stream.ready);
    // Notices of earlier tests' deposits, gathered for 250 ms, come before the count starts.
    await pause(400);
    const before = stream.events().length;
    const res = await send(server, sandbox, { path: "/paymentapi/v1/deposits", body: depositBody() });
    expect(res.status).toBe(200);
    // No notice comes within what gathering takes (250 ms) and more.
    await pause(700);
    expect(stream.events().length).toBe(before);
    await stream.close();
  });

  it("an auto-cancel of a live firm's deposit tells the consoles; of a test firm's alone, it does not", async () => {
    const { own, s } = await ownServerSignedIn({ PAYINTAKE_AUTO_CANCEL_INTERVAL_MS: "25" });
    try {
      await addAccount(own);
      const provider = await own.admin("POST", "/admin/v1/providers", { name: "P1", auto_cancel_minutes: 1 });
      expect(provider.status).toBe(201);
      const live = await createFirm(own, { provider_id: provider.json.id });
      const test = await createFirm(own, { provider_id: provider.json.id, sandbox: true });
      const stream = await openStream(own, s.cookie);
      await stream.until(stream.ready);
      /** The notices of its auto-cancel: of a live firm's deposit awaited, of a test firm's none. */
      const cancelled = async (firm: TestFirm, tellsConsoles: boolean) => {
        const created = stream.events().length;
        const body = depositBody();
        expect((await send(own, firm, { path: "/paymentapi/v1/deposits", body })).status).toBe(200);
        // Past the notice of its creation (a live firm's).
        if (tellsConsoles) await stream.until(() => stream.events().length > created);
        const before = stream.events().length;
        own.clock.advance(61_000);
        await expect
          .poll(
            async () =>
              (
                await send(own, firm, {
                  path: `/paymentapi/v1/transactions/by-reference/${body.reference}`,
                })
              ).json.data.status,
            { timeout: 3_000 },
          )
          .toBe("rejected");
        if (tellsConsoles) await stream.until(() => stream.events().length > before);
        // A test firm's: no notice comes within what gathering takes (250 ms) and more.
        else await pause(600);
        return stream.events().length - before;
      };
      expect(await cancelled(test, false)).toBe(0);
      expect(await cancelled(live, true)).toBeGreaterThanOrEqual(1);
      await stream.close();
    } finally {
      await own.close();
    }
  });

  it("a session holds at most three streams, an operator eight (then 429 until one closes)", async () => {
    const s = await signIn("other@ops.example");
    const streams = [];
    for (let i = 0; i < 3; i++) {
      const st = await openStream(server, s.cookie);
      expect(st.res.statusCode).toBe(200);
      streams.push(st);
    }
    const refused = {
      success: false,
      code: "too_many_live_connections_here",
      message: "Too many live connections for this operator or session; the console polls instead",
    };
    const fourth = await request(`${server.url}/ops/api/events`, { headers: { cookie: s.cookie } });
    expect(fourth.statusCode).toBe(429);
    expect(await fourth.body.json()).toEqual(refused);
    // Other sessions of the same operator have their own three, up to eight in all.
    for (const n of [3, 2]) {
      const t = await signIn("other@ops.example");
      for (let i = 0; i < n; i++) {
        const st = await openStream(server, t.cookie);
        expect(st.res.statusCode).toBe(200);
        streams.push(st);
      }
    }
    const u = await signIn("other@ops.example");
    const ninth = await request(`${server.url}/ops/api/events`, { headers: { cookie: u.cookie } });
    expect(ninth.statusCode).toBe(429);
    expect(await ninth.body.json()).toEqual(refused);

    await streams[0]?.close();
    let again: Awaited<ReturnType<typeof openStream>> | undefined;
    for (let i = 0; i < 50 && again?.res.statusCode !== 200; i++) {
      await again?.close();
      await pause(20);
      again = await openStream(server, s.cookie);
    }
    expect(again?.res.statusCode).toBe(200);
    await again?.close();
    for (const st of streams.slice(1)) await st.close();
  });

  it("a client that leaves while its session is looked up gives its slot back", async () => {
    const s = await signIn("many@ops.example");
    for (let i = 0; i < 4; i++) await openAndAbort(server, s.cookie);
    // Each slot comes back once its lookup ends: a stream opens (while any is held: 429, no stream).
    await expect
      .poll(async () => {
        const res = await request(`${server.url}/ops/api/events`, { headers: { cookie: s.cookie } });
        res.body.destroy();
        return res.statusCode;
      })
      .toBe(200);
  });

  it("a stream ends at the heartbeat after its session ended (signed out)", async () => {
    const s = await signIn("gone@ops.example");
    const stream = await openStream(server, s.cookie);
    await stream.until(stream.ready);
    const out = await consoleCall(server, "POST", "/ops/api/logout", { cookie: s.cookie, csrf: s.csrf });
    expect(out.status).toBe(200);
    await stream.until(() => stream.ended(), 3_000);
    await stream.close();
  });

  it("the server stops at once with streams open, ending them", async () => {
    const { own, s } = await ownServerSignedIn();
    try {
      const stream = await openStream(own, s.cookie);
      await stream.until(stream.ready);
      const started = Date.now();
      await own.close();
      expect(Date.now() - started).toBeLessThan(3_000);
      await stream.until(() => stream.ended());
    } catch (err) {
      await own.close().catch(() => {});
      throw err;
    }
  });

  it.runIf(kind === "postgres")(
    "a deposit taken by another instance reaches this instance's consoles; three instances' deposits stay a few notices a second",
    async () => {
      const others = [
        await startTestServer(kind, { LOG_LEVEL: "warn" }, { shareStoreOf: server }),
        await startTestServer(kind, { LOG_LEVEL: "warn" }, { shareStoreOf: server }),
      ];
      try {
        const second = others[0] as TestServer;
        const s = await consoleLogin(second, "op@ops.example", "op@ops.example-password-123");
        const stream = await openStream(second, s.cookie);
        await stream.until(stream.ready);
        // The second instance listens for the database's notices once it has started (not awaited
        // by its start): deposits on the first until one's notice reaches the stream.
        const before = stream.events().length;
        await vi.waitFor(
          async () => {
            await deposit();
            await stream.until(() => stream.events().length > before, 500);
          },
          { timeout: 10_000, interval: 0 },
        );

        // The notices of the deposits above, gathered for 250 ms, come before the count starts.
        await pause(500);
        const from = stream.events().length;
        const started = Date.now();
        let going = true;
        const loops = [server, ...others].map(async (instance) => {
          while (going) {
            const res = await send(instance, firm, { path: "/paymentapi/v1/deposits", body: depositBody() });
            expect(res.status).toBe(200);
            await pause(20);
          }
        });
        // Two seconds of steady deposits: the rate of notices over them is what is measured.
        await pause(2_000);
        going = false;
        await Promise.all(loops);
        const seconds = (Date.now() - started) / 1000;
        // The last notices, gathered for 250 ms on each instance, come before the count.
        await pause(500);
        // Each instance gathers its own for 250 ms; what reaches a console is gathered again.
        expect((stream.events().length - from) / seconds).toBeLessThanOrEqual(5);
        await stream.close();
      } finally {
        for (const other of others) await other.close();
      }
    },
  );

  it.runIf(kind === "postgres")(
    "a stream whose session was being looked up when the server began to stop does not keep it from stopping",
    async () => {
      const { own, s } = await ownServerSignedIn();
      const locker = new pg.Client({ connectionString: own.env.DATABASE_URL });
      try {
        // Hold the session lookup: the stream's guard waits on it while the stop begins.
        await locker.connect();
        await locker.query("BEGIN");
        await locker.query("LOCK TABLE operator_sessions IN ACCESS EXCLUSIVE MODE");
        const opening = request(`${own.url}/ops/api/events`, { headers: { cookie: s.cookie } });
        await expect
          .poll(
            async () =>
              (
                await locker.query(
                  "SELECT count(*)::int AS n FROM pg_locks WHERE NOT granted AND relation = 'operator_sessions'::regclass",
                )
              ).rows[0].n,
          )
          .toBeGreaterThan(0);
        const closing = own.close();
        // The stop has begun once the server listens no more.
        await expect.poll(() => accepts(own.url)).toBe(false);
        await locker.query("COMMIT");
        const res = await opening;
        expect(res.statusCode).toBe(503);
        await res.body.text();
        const outcome = await Promise.race([
          closing.then(() => "stopped"),
          pause(10_000).then(() => "still stopping after 10 s"),
        ]);
        expect(outcome).toBe("stopped");
      } finally {
        await locker.end().catch(() => {});
        await own.close().catch(() => {});
      }
    },
    30_000,
  );
});
