import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { consoleCall, consoleLogin } from "../support/console.js";
import { STORES, startTestServer, type TestServer } from "../support/harness.js";
import { addAccount, createFirm, depositBody, send, type TestFirm } from "../support/merchant.js";

/** An open /ops/api/events stream: its frames as they arrive ("retry: 3000", "event: queue\ndata: changed"). */
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
    for (const email of ["op@ops.example", "other@ops.example", "gone@ops.example"]) {
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

  async function deposit() {
    const body = depositBody();
    expect((await send(server, firm, { path: "/paymentapi/v1/deposits", body })).status).toBe(200);
    const q = await send(server, firm, {
      path: `/paymentapi/v1/transactions/by-reference/${body.reference}`,
    });
    return q.json.data.id as number;
  }

  it("needs a session: 401 in the envelope, no stream", async () => {
    const res = await request(`${server.url}/ops/api/events`);
    expect(res.statusCode).toBe(401);
    expect(res.headers["content-type"]).toMatch(/^application\/json/);
    expect(await res.body.json()).toEqual({ success: false, message: "Login required" });
  });

  it("tells a signed-in console of a new deposit and of a decision, with no data of their own", async () => {
    const s = await signIn("op@ops.example");
    const stream = await openStream(server, s.cookie);
    expect(stream.res.statusCode).toBe(200);
    expect(stream.res.headers["content-type"]).toBe("text/event-stream; charset=utf-8");
    expect(stream.res.headers["cache-control"]).toBe("no-store");
    await stream.until(() => stream.frames.includes("retry: 3000"));

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
    await stream.until(() => stream.frames.includes("retry: 3000"));
    await pause(400);
    const before = stream.events().length;
    await Promise.all(Array.from({ length: 20 }, () => deposit()));
    await stream.until(() => stream.events().length > before);
    await pause(600);
    // 20 deposits within well under a second: one notice per 250 ms at most.
    expect(stream.events().length - before).toBeLessThanOrEqual(6);
    await stream.close();
  });

  it("a session holds at most four streams (the fifth is refused until one closes)", async () => {
    const s = await signIn("other@ops.example");
    const streams = [];
    for (let i = 0; i < 4; i++) {
      const st = await openStream(server, s.cookie);
      expect(st.res.statusCode).toBe(200);
      streams.push(st);
    }
    const fifth = await request(`${server.url}/ops/api/events`, { headers: { cookie: s.cookie } });
    expect(fifth.statusCode).toBe(429);
    expect(await fifth.body.json()).toEqual({
      success: false,
      message: "Too many live connections for this session; the console polls instead",
    });
    // Another session of the same operator has its own four.
    const t = await signIn("other@ops.example");
    const elsewhere = await openStream(server, t.cookie);
    expect(elsewhere.res.statusCode).toBe(200);
    await elsewhere.close();

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

  it("a stream ends at the heartbeat after its session ended (signed out)", async () => {
    const s = await signIn("gone@ops.example");
    const stream = await openStream(server, s.cookie);
    await stream.until(() => stream.frames.includes("retry: 3000"));
    const out = await consoleCall(server, "POST", "/ops/api/logout", { cookie: s.cookie, csrf: s.csrf });
    expect(out.status).toBe(200);
    await stream.until(() => stream.ended(), 3_000);
    await stream.close();
  });

  it("the server stops at once with streams open, ending them", async () => {
    const own = await startTestServer(kind, { LOG_LEVEL: "warn" });
    try {
      await own.admin("POST", "/admin/v1/operators", {
        email: "op@ops.example",
        role: "operator",
        password: "op@ops.example-password-123",
      });
      const s = await consoleLogin(own, "op@ops.example", "op@ops.example-password-123");
      const stream = await openStream(own, s.cookie);
      await stream.until(() => stream.frames.includes("retry: 3000"));
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
    "a deposit taken by another instance reaches this instance's consoles",
    async () => {
      const second = await startTestServer(kind, { LOG_LEVEL: "warn" }, { shareStoreOf: server });
      try {
        const s = await consoleLogin(second, "op@ops.example", "op@ops.example-password-123");
        const stream = await openStream(second, s.cookie);
        await stream.until(() => stream.frames.includes("retry: 3000"));
        // The second instance listens for the database's notices once it has started.
        await pause(500);
        const before = stream.events().length;
        await deposit();
        await stream.until(() => stream.events().length > before);
        await stream.close();
      } finally {
        await second.close();
      }
    },
  );
});
